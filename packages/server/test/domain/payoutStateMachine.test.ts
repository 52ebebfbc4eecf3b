import { readFileSync } from 'node:fs';
import { PAYOUT_STATUSES, WEBHOOK_EVENT_TYPES, type PayoutStatus } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import {
  canTransition,
  DEFAULT_STATUS_MESSAGE,
  isFinal,
  ON_HOLD_STATUSES,
  PAYOUT_TRANSITIONS,
  payoutEventType,
  RETURN_TRANSITION,
} from '../../src/domain/payoutStateMachine.ts';

/** The provider interface's transition table, written out. */
const SEED_TABLE: [PayoutStatus, PayoutStatus][] = [
  ['INITIATED', 'PROCESSING'],
  ['PROCESSING', 'SUCCESS'],
  ['PROCESSING', 'FAILED'],
  ['PROCESSING', 'PENDING'],
  ['PENDING', 'SUCCESS'],
  ['PENDING', 'FAILED'],
  ['FAILED', 'REFUNDED'],
];
/** The provider interface's table and the return: a SUCCESS payout whose money the bank sent back. */
const TABLE: [PayoutStatus, PayoutStatus][] = [...SEED_TABLE, ['SUCCESS', 'REFUNDED']];

const allPairs = PAYOUT_STATUSES.flatMap((from) =>
  PAYOUT_STATUSES.map((to) => [from, to] as [PayoutStatus, PayoutStatus]),
);

describe('payout state machine', () => {
  it.each(allPairs)('%s → %s is allowed exactly when the provider interface (or the return) lists it', (from, to) => {
    const listed = TABLE.some(([a, b]) => a === from && b === to);
    expect(canTransition(from, to)).toBe(listed);
  });

  it('has an entry for every status', () => {
    expect(Object.keys(PAYOUT_TRANSITIONS).sort()).toEqual([...PAYOUT_STATUSES].sort());
  });

  it('agrees with the table the database trigger enforces (migration 002, then 017 with the return)', () => {
    const pairsOf = (file: string) => {
      const sql = readFileSync(new URL(`../../src/store/migrations/${file}`, import.meta.url), 'utf8');
      const list = /NOT IN \(([\s\S]*?\))\) THEN/.exec(sql)?.[1] ?? '';
      return [...list.matchAll(/\('([A-Z]+)', '([A-Z]+)'\)/g)].map((m) => `${m[1]}->${m[2]}`).sort();
    };
    expect(pairsOf('002_payouts.sql')).toEqual(SEED_TABLE.map(([a, b]) => `${a}->${b}`).sort());
    expect(pairsOf('017_payout_returns.sql')).toEqual(TABLE.map(([a, b]) => `${a}->${b}`).sort());
  });

  it('ends a payout at SUCCESS or REFUNDED; FAILED always goes on to REFUNDED', () => {
    expect(PAYOUT_STATUSES.filter(isFinal).sort()).toEqual(['REFUNDED', 'SUCCESS']);
    expect(isFinal('FAILED')).toBe(false);
    expect(isFinal('PENDING')).toBe(false);
  });

  it('leaves SUCCESS only by a return, to REFUNDED', () => {
    expect(RETURN_TRANSITION).toEqual({ from: 'SUCCESS', to: 'REFUNDED' });
    expect(PAYOUT_TRANSITIONS.SUCCESS).toEqual(['REFUNDED']);
    expect(isFinal('SUCCESS')).toBe(true);
  });

  it('holds the amount of payouts not yet final: INITIATED, PROCESSING, PENDING', () => {
    expect([...ON_HOLD_STATUSES].sort()).toEqual(['INITIATED', 'PENDING', 'PROCESSING']);
  });

  it('names one webhook event per status reached after initiation', () => {
    expect(payoutEventType('INITIATED')).toBeNull();
    const events = PAYOUT_STATUSES.filter((s) => s !== 'INITIATED').map(payoutEventType);
    expect(events).toEqual([
      'payout.processing',
      'payout.pending',
      'payout.success',
      'payout.failed',
      'payout.refunded',
    ]);
    for (const event of events) expect(WEBHOOK_EVENT_TYPES).toContain(event);
  });

  it('has a status message for every status', () => {
    for (const status of PAYOUT_STATUSES) expect(DEFAULT_STATUS_MESSAGE[status]).toMatch(/\S/);
  });
});
