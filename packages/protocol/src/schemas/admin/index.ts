/**
 * The operator API (docs/operator/admin-api.md) and the console's reads of it: every request and answer shape, once,
 * one file per resource. Answers list every property the server writes; an open-ended map says so with
 * `additionalProperties`.
 */
export * from './wallets.ts';
export * from './merchants.ts';
export * from './creditRequests.ts';
export * from './timeline.ts';
export * from './payouts.ts';
export * from './ledger.ts';
export * from './collections.ts';
export * from './batches.ts';
export * from './deliveries.ts';
export * from './operators.ts';
export * from './audit.ts';
export * from './stats.ts';
export * from './statements.ts';
export * from './connectors.ts';
export * from './reconciliation.ts';
export * from './bankFiles.ts';
export * from './pricing.ts';
export * from './invoices.ts';
export * from './platform.ts';
export * from './liens.ts';
export * from './deposits.ts';
export * from './settlements.ts';
