import type { CodeDef } from '@payrail/protocol';

/**
 * A request refused with a documented code. `data` is the plaintext object to return encrypted (for example
 * the existing payout of a duplicate sender_id). Nothing was recorded when this is thrown.
 */
export class RequestRejected extends Error {
  constructor(
    readonly def: CodeDef,
    readonly data?: unknown,
  ) {
    super(def.message);
    this.name = 'RequestRejected';
  }
}
