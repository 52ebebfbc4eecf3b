import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBMISSIONS } from '../../src/jobs/PayoutStepper.ts';
import type { BankConnector, RailOutcome, SubmitAnswer, Transfer } from '../../src/rails/BankConnector.ts';
import type { Database } from '../../src/store/Database.ts';
import { admin } from '../support/merchantClient.ts';
import {
  adminPayout,
  expectLedgerOk,
  fundedMerchant,
  initiateOk,
  payoutRequest,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

const IFSC = 'HDFC0001234';
const ACCOUNTS = { loseFirst: '300000000001', loseAll: '300000000002' };

/**
 * A bank that takes every transfer, while the worker that asked "crashes" before recording the answer: during the
 * call its lease on the job is taken over and expired, exactly the state a dead process leaves behind (the
 * submission recorded, the answer not, the job claimable again). The recording transaction then finds the job no
 * longer its own and changes nothing, so the answer is lost.
 */
class CrashingRail implements BankConnector {
  readonly name = 'crashing';
  readonly submitDelayMs = 0;
  readonly submits = new Map<string, Transfer[]>();
  db: Database | null = null;

  async verifyBeneficiary(): Promise<boolean> {
    return true;
  }

  async submit(transfer: Transfer): Promise<SubmitAnswer> {
    const calls = [...(this.submits.get(transfer.payoutId) ?? []), transfer];
    this.submits.set(transfer.payoutId, calls);
    const lose = transfer.accountNumber === ACCOUNTS.loseAll || calls.length === 1;
    if (lose) {
      await this.db?.query(
        `UPDATE jobs SET lease_owner = 'crashed-worker', locked_until = now() - interval '1 second'
          WHERE kind = 'payout.advance' AND subject_id = $1`,
        [transfer.payoutId],
      );
    }
    return { accepted: true, reference: `CR-${transfer.idempotencyKey}` };
  }

  async poll(): Promise<RailOutcome | null> {
    return null;
  }

  pollDelayMs(): number | null {
    return null;
  }
}

describe.each(ENGINES)('a submission whose answer was lost, on %s', (engine) => {
  let t: TestServer;
  let f: Funded;
  const rail = new CrashingRail();

  beforeAll(async () => {
    t = await startTestServer(engine, { rail });
    rail.db = t.db;
    f = await fundedMerchant(t.url, 'v2', '10000.00');
  });
  afterAll(() => t.close());

  const send = async (account: string) =>
    (
      await initiateOk(
        f.client,
        payoutRequest('nested', {
          wallet_id: f.merchant.wallet_id,
          beneficiary_ifsc: IFSC,
          beneficiary_acc_number: account,
        }),
      )
    ).transaction_id as string;
  const jobsOf = async (id: string) => (await t.db.query('SELECT 1 FROM jobs WHERE subject_id = $1', [id])).rows.length;
  const attemptsOf = async (id: string) =>
    Number(
      (await t.db.query<{ n: number }>('SELECT submit_attempts AS n FROM payouts WHERE id = $1', [id])).rows[0]?.n,
    );

  it('is submitted again with the same idempotency key, and the answer to the resubmission is applied', async () => {
    const id = await send(ACCOUNTS.loseFirst);
    const processing = await waitForStatus(t.url, id, 'PROCESSING');
    const calls = rail.submits.get(id) ?? [];
    expect(calls.length).toBe(2);
    expect(calls.map((c) => c.idempotencyKey)).toEqual([id, id]);
    expect(await attemptsOf(id)).toBe(2);
    expect([processing.rail_reference, processing.rail_error]).toEqual([`CR-${id}`, null]);
  });

  it(`stops after ${MAX_SUBMISSIONS} lost answers with a rail_error naming the key, and never submits again`, async () => {
    const id = await send(ACCOUNTS.loseAll);
    const stopped = (await eventually(async () => {
      const p = await adminPayout(t.url, id);
      return p.rail_error ? p : null;
    }, 15_000)) as Record<string, unknown>;
    // Nothing is left to claim (no job of the payout), and a few worker polls show no further call.
    await eventually(async () => (await jobsOf(id)) === 0, 8000);
    await new Promise((r) => setTimeout(r, 150));
    const calls = rail.submits.get(id) ?? [];
    expect(calls.length).toBe(MAX_SUBMISSIONS);
    expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([id]));
    expect(stopped.status).toBe('INITIATED');
    expect(stopped.rail_error).toBe(
      `the answers to ${MAX_SUBMISSIONS} submissions were lost; ask the bank about idempotency key ${id}`,
    );
    expect(await jobsOf(id)).toBe(0);
    const timeline = (await admin(t.url, 'GET', `/admin/v1/payouts/${id}/timeline`)).body.events as Array<
      Record<string, unknown>
    >;
    expect(timeline.map((e) => `${String(e.type)}:${String(e.actor)}`)).toEqual([
      'request:merchant',
      'error:rail:crashing',
    ]);

    // The operator, having asked the bank, settles it; nothing is submitted again.
    const resolved = await admin(t.url, 'POST', `/admin/v1/payouts/${id}/resolve`, {
      status: 'SUCCESS',
      utr_number: 'BANKUTR00001',
    });
    expect(resolved.body).toMatchObject({ status: 'SUCCESS', utr_number: 'BANKUTR00001', rail_error: null });
    expect(rail.submits.get(id)?.length).toBe(MAX_SUBMISSIONS);
    await expectLedgerOk(t.url);
  });
});
