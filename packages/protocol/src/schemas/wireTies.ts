import type { FromSchema } from '../jsonSchema.ts';
import type {
  BulkRequestWire,
  BulkStatusWire,
  CollectionInitiateRequestWire,
  PayoutInitiateRequestWire,
} from '../wire.ts';
import type { WIRE_SCHEMAS } from '../wireSchemas.ts';

/**
 * Compile-time ties of the four wire types (wire.ts) that say more than their JSON Schema (wireSchemas.ts); every
 * other wire type is its schema's type, with nothing to tie. Each is made of its schema too, with some fields
 * replaced: these checks keep the replacements what wire.ts says they are, and `tsc` fails when one stops holding.
 */
type Tie<T extends true> = T;
type Of<K extends keyof typeof WIRE_SCHEMAS> = FromSchema<(typeof WIRE_SCHEMAS)[K]>;
type Extends<A, B> = [A] extends [B] ? true : false;

export type WireSchemaTies = [
  // Wider: every plaintext the schema documents is one the type takes (a payment mode, an amount as text).
  Tie<Extends<Of<'PayoutInitiateRequest'>, PayoutInitiateRequestWire>>,
  Tie<Extends<Of<'CollectionInitiateRequest'>, CollectionInitiateRequestWire>>,
  // A bulk request's items are what the schema's $ref names: payout initiations.
  Tie<
    Extends<
      (typeof WIRE_SCHEMAS)['BulkPayoutRequest']['properties']['items']['items']['$ref'],
      'PayoutInitiateRequest#'
    >
  >,
  Tie<Extends<BulkRequestWire['items'][number], PayoutInitiateRequestWire>>,
  // Narrower: the status route's answer is a BulkPayoutStatus that always carries its page.
  Tie<Extends<BulkStatusWire, Of<'BulkPayoutStatus'>>>,
];
