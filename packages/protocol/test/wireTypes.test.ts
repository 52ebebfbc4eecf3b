import { describe, expectTypeOf, it } from 'vitest';
import type {
  BulkItemVerdictWire,
  BulkRequestWire,
  BulkStatusWire,
  BulkSummaryWire,
  CollectionInitiateRequestWire,
  CollectionTransactionWire,
  CollectionTxnType,
  FromSchema,
  PaymentMode,
  PayoutInitiateRequestWire,
  PayoutStatus,
  PayoutTransactionWire,
  WebhookEventType,
  WebhookEventWire,
} from '../src/index.ts';

// Type-level checks: `tsc` (npm run typecheck) fails when one does not hold; at run time these tests do nothing.
// The wire types are their JSON Schemas' (wireSchemas.ts): what a schema says required is a field always there.

describe('the wire types made of their schemas', () => {
  it('has every field an answer always carries, and leaves optional the ones it may not', () => {
    expectTypeOf<PayoutTransactionWire['utr_number']>().toEqualTypeOf<string>();
    expectTypeOf<PayoutTransactionWire['status']>().toEqualTypeOf<PayoutStatus>();
    expectTypeOf<PayoutTransactionWire['payment_mode']>().toEqualTypeOf<PaymentMode>();
    expectTypeOf<PayoutTransactionWire['beneficiary']>().toEqualTypeOf<{
      beneficiary_name: string;
      beneficiary_acc_number: string;
      beneficiary_ifsc: string;
      bank_name: string;
    }>();
    expectTypeOf<PayoutTransactionWire['timestamps']>().toEqualTypeOf<{ created_at: string; updated_at: string }>();
    expectTypeOf<CollectionTransactionWire['paymentUrl']>().toEqualTypeOf<string>();
    expectTypeOf<CollectionTransactionWire['intentUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CollectionTransactionWire['txnType']>().toEqualTypeOf<CollectionTxnType>();
    expectTypeOf<WebhookEventWire>().toEqualTypeOf<{
      id: string;
      type: WebhookEventType;
      created_at: string;
      data: string;
    }>();
  });

  it('takes a bulk answer’s verdicts and summary from it', () => {
    expectTypeOf<BulkItemVerdictWire>().toEqualTypeOf<{
      index: number;
      sender_id: string;
      resp_code: number;
      resp_message: string;
      transaction_id?: string;
      status?: PayoutStatus;
      fees?: string;
      tax?: string;
    }>();
    expectTypeOf<BulkSummaryWire>().toEqualTypeOf<{
      accepted: number;
      refused: number;
      amount_accepted: string;
      fees: string;
      tax: string;
    }>();
  });

  it('says what the schema cannot: wider requests, a bulk request’s items, the status route’s page', () => {
    expectTypeOf<PayoutInitiateRequestWire['payment_mode']>().toEqualTypeOf<string>();
    expectTypeOf<PayoutInitiateRequestWire['amount']>().toEqualTypeOf<string | number>();
    expectTypeOf<PayoutInitiateRequestWire['beneficiary_ifsc']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CollectionInitiateRequestWire['requestAmount']>().toEqualTypeOf<string | number | undefined>();
    expectTypeOf<CollectionInitiateRequestWire['senderId']>().toEqualTypeOf<string>();
    expectTypeOf<BulkRequestWire['items']>().toEqualTypeOf<PayoutInitiateRequestWire[]>();
    expectTypeOf<BulkStatusWire['has_more']>().toEqualTypeOf<boolean>();
    expectTypeOf<BulkStatusWire['next_cursor']>().toEqualTypeOf<string | null>();
    expectTypeOf<BulkStatusWire['completed_at']>().toEqualTypeOf<string | null>();
    expectTypeOf<BulkStatusWire['summary']['by_status']>().toEqualTypeOf<Partial<Record<PayoutStatus, number>>>();
  });
});

describe('FromSchema', () => {
  it('keys an object by the names its propertyNames enumerates, each optional', () => {
    type Counts = {
      type: 'object';
      propertyNames: { enum: readonly ['a', 'b'] };
      additionalProperties: { type: 'integer' };
    };
    expectTypeOf<FromSchema<Counts>>().toEqualTypeOf<{ a?: number; b?: number }>();
    type Open = { type: 'object'; additionalProperties: { type: 'integer' } };
    expectTypeOf<FromSchema<Open>>().toEqualTypeOf<Record<string, number>>();
  });
});
