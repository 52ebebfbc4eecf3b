import type { CodeDef } from '@payrail/protocol';
import { RequestRejected } from './RequestRejected.ts';

/** A request refused by a limit (4290); answered with `Retry-After: retryAfterSeconds`. */
export class RequestThrottled extends RequestRejected {
  constructor(
    def: CodeDef,
    readonly retryAfterSeconds: number,
  ) {
    super(def);
    this.name = 'RequestThrottled';
  }
}
