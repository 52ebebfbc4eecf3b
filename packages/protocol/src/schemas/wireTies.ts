import type { FromSchema, SameKeys } from '../jsonSchema.ts';
import type {
  BalanceWire,
  BeneficiaryVerificationWire,
  BulkResultWire,
  BulkStatusWire,
  CollectionTransactionWire,
  PayoutTransactionWire,
  WebhookEventWire,
} from '../wire.ts';
import type { WIRE_SCHEMAS } from '../wireSchemas.ts';

/**
 * Compile-time ties between the wire interfaces (wire.ts, what the server builds and the SDK reads) and the JSON
 * Schemas the OpenAPI document publishes (wireSchemas.ts): a field added to one and not the other fails `tsc`.
 */
type Tie<T extends true> = T;
type Of<K extends keyof typeof WIRE_SCHEMAS> = FromSchema<(typeof WIRE_SCHEMAS)[K]>;

export type WireSchemaTies = [
  Tie<SameKeys<PayoutTransactionWire, Of<'PayoutTransaction'>>>,
  Tie<SameKeys<PayoutTransactionWire['beneficiary'], NonNullable<Of<'PayoutTransaction'>['beneficiary']>>>,
  Tie<SameKeys<PayoutTransactionWire['timestamps'], NonNullable<Of<'PayoutTransaction'>['timestamps']>>>,
  Tie<SameKeys<BalanceWire, Of<'Balance'>>>,
  Tie<SameKeys<CollectionTransactionWire, Of<'CollectionTransaction'>>>,
  Tie<SameKeys<BulkResultWire, Of<'BulkPayoutResult'>>>,
  Tie<SameKeys<BulkStatusWire, Of<'BulkPayoutStatus'>>>,
  Tie<SameKeys<BeneficiaryVerificationWire, Of<'BeneficiaryVerification'>>>,
  Tie<SameKeys<WebhookEventWire, Of<'WebhookEvent'>>>,
];
