import { CollectionCodes, Common, PayoutCodes, SettlementCodes, TokenCodes, type CodeDef } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import { COLLECTION, CONFLICT_CODES, PAYOUT, SETTLEMENT, TOKEN, toError, type ApiFamily } from '../src/classify.ts';
import {
  AuthenticationError,
  BankUnavailableError,
  ConflictError,
  DecryptionError,
  InsufficientFundsError,
  NoSettlementAccountError,
  NothingToSettleError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../src/errors.ts';

/**
 * Issue 17: the SDK's error classes are keyed by protocol's code table, and every refusal code of the table is
 * classified on purpose (by its own entry, or by the rules that come before the tables: conflicts, 4014, 4290,
 * 5000). A code added to protocol without an SDK mapping fails here.
 */
const refusals = (table: Record<string, CodeDef>) => Object.values(table).filter((def) => def.code !== 2000);

const decidedFirst = (family: ApiFamily, def: CodeDef) =>
  CONFLICT_CODES[family].includes(def.code) ||
  def === Common.rateLimited ||
  def === TokenCodes.tooManyFailures ||
  def.code === PayoutCodes.undecryptable.code ||
  def.code === Common.internal.code;

describe('SDK error classes come from protocol codes', () => {
  const families: [ApiFamily, Record<string, CodeDef>, Record<number, unknown>][] = [
    ['payout', PayoutCodes, PAYOUT],
    ['collection', CollectionCodes, COLLECTION],
    ['settlement', SettlementCodes, SETTLEMENT],
    ['token', TokenCodes, TOKEN],
  ];

  it.each(families)('classifies every %s code of the protocol table', (family, codes, classes) => {
    const unmapped = refusals({ ...codes, ...Common })
      .filter((def) => !(def.code in classes) && !decidedFirst(family, def))
      .map((def) => `${def.code} ${def.message}`);
    expect(unmapped).toEqual([]);
  });

  it.each(families)('has no %s entry for a code protocol does not define', (_family, codes, classes) => {
    const known = new Set(refusals({ ...codes, ...Common }).map((def) => def.code));
    expect(
      Object.keys(classes)
        .map(Number)
        .filter((code) => !known.has(code)),
    ).toEqual([]);
  });

  it('answers every refusal with the class its HTTP status and code call for', () => {
    const refusal = (family: ApiFamily, def: CodeDef) =>
      toError({ family, operation: 'payouts.initiate', httpStatus: def.http, code: def.code, message: def.message });
    expect(refusal('payout', PayoutCodes.bankDown)).toBeInstanceOf(BankUnavailableError);
    expect(refusal('payout', PayoutCodes.undecryptable)).toBeInstanceOf(DecryptionError);
    expect(refusal('payout', PayoutCodes.duplicateSenderId)).toBeInstanceOf(ConflictError);
    expect(refusal('collection', CollectionCodes.transitionNotAllowed)).toBeInstanceOf(ConflictError);
    expect(refusal('token', TokenCodes.tooManyFailures)).toBeInstanceOf(RateLimitError);
    expect(refusal('payout', Common.unavailable)).toBeInstanceOf(ServerError);
  });

  it('reads settlement codes in their own context: 4002 and 4016 are not what they are on payouts', () => {
    const refusal = (family: ApiFamily, def: CodeDef) =>
      toError({
        family,
        operation: 'settlements.initiate',
        httpStatus: def.http,
        code: def.code,
        message: def.message,
      });
    expect(refusal('settlement', SettlementCodes.nothingToSettle)).toBeInstanceOf(NothingToSettleError);
    expect(refusal('payout', PayoutCodes.insufficientBalance)).toBeInstanceOf(InsufficientFundsError);
    expect(refusal('settlement', SettlementCodes.noSettlementAccount)).toBeInstanceOf(NoSettlementAccountError);
    expect(refusal('settlement', SettlementCodes.otherMerchant)).toBeInstanceOf(NotFoundError);
    expect(refusal('settlement', SettlementCodes.notFound)).toBeInstanceOf(NotFoundError);
    expect(refusal('settlement', SettlementCodes.walletNotFound)).toBeInstanceOf(NotFoundError);
    expect(refusal('settlement', SettlementCodes.walletIdMissing)).toBeInstanceOf(ValidationError);
    expect(refusal('settlement', SettlementCodes.undecryptable)).toBeInstanceOf(DecryptionError);
    expect(refusal('settlement', SettlementCodes.unauthorized)).toBeInstanceOf(AuthenticationError);
  });
});
