import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BankConnector, RailOutcome, SubmitAnswer, Transfer } from '../../src/rails/BankConnector.ts';
import { admin } from '../support/merchantClient.ts';
import {
  adminPayout,
  expectLedgerOk,
  fundedMerchant,
  initiateOk,
  payoutRequest,
  waitForStatus,
  walletBalance,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

const IFSC = 'HDFC0001234';
/** Each account makes the connector misbehave in its own way. */
const ACCOUNTS = {
  instantSuccess: '200000000001',
  throwingSubmit: '200000000002',
  illegalPoll: '200000000003',
  refused: '200000000004',
};

/**
 * A connector that breaks the rules on purpose: SUCCESS straight from submit, a submit that throws, a poll that
 * reports PENDING → PROCESSING (not in the transition table). It counts every call per payout. It also answers
 * in the shape of the connector interface before this change (`status`, `nextStepDelayMs`), so that the same
 * test shows the old retry storm.
 */
class MisbehavingRail implements BankConnector {
  readonly name = 'misbehaving';
  readonly submitDelayMs = 0;
  readonly submits = new Map<string, Transfer[]>();
  readonly polls = new Map<string, number>();

  async verifyBeneficiary(): Promise<boolean> {
    return true;
  }

  async submit(transfer: Transfer): Promise<SubmitAnswer> {
    this.submits.set(transfer.payoutId, [...(this.submits.get(transfer.payoutId) ?? []), transfer]);
    switch (transfer.accountNumber) {
      case ACCOUNTS.instantSuccess:
        return { status: 'SUCCESS', utr: '123456789012' } as unknown as SubmitAnswer;
      case ACCOUNTS.throwingSubmit:
        throw new Error('connection reset by the bank');
      case ACCOUNTS.refused:
        return { accepted: false, reason: 'Beneficiary account is closed', status: 'FAILED' } as SubmitAnswer;
      default:
        return { accepted: true, reference: `MIS-${transfer.idempotencyKey}`, status: 'PROCESSING' } as SubmitAnswer;
    }
  }

  async poll(transfer: Transfer): Promise<RailOutcome | null> {
    const n = (this.polls.get(transfer.payoutId) ?? 0) + 1;
    this.polls.set(transfer.payoutId, n);
    return n === 1 ? { status: 'PENDING' } : { status: 'PROCESSING' };
  }

  pollDelayMs(): number | null {
    return 30;
  }

  nextStepDelayMs(): number {
    return 30;
  }
}

describe.each(ENGINES)('a misbehaving bank connector on %s', (engine) => {
  let t: TestServer;
  let f: Funded;
  const rail = new MisbehavingRail();

  beforeAll(async () => {
    t = await startTestServer(engine, { rail });
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

  const timeline = async (id: string) => {
    const res = await admin(t.url, 'GET', `/admin/v1/payouts/${id}/timeline`);
    expect(res.status).toBe(200);
    return res.body.events as Array<Record<string, unknown>>;
  };
  const jobsOf = async (id: string) => (await t.db.query('SELECT 1 FROM jobs WHERE subject_id = $1', [id])).rows.length;

  it('is called once per payout whatever it answers, and what it answers wrong waits on the payout', async () => {
    const instant = await send(ACCOUNTS.instantSuccess);
    const throwing = await send(ACCOUNTS.throwingSubmit);
    const illegal = await send(ACCOUNTS.illegalPoll);

    await eventually(
      () => rail.submits.has(instant) && rail.submits.has(throwing) && (rail.polls.get(illegal) ?? 0) >= 2,
      8000,
    );
    // Nothing is left to call the rail again: no job of these payouts remains (the old code's backoff, 1 s then 2 s,
    // kept one). A few worker polls (20 ms) would show a call made at once.
    await eventually(async () => {
      for (const id of [instant, throwing, illegal]) if ((await jobsOf(id)) !== 0) return false;
      return true;
    }, 8000);
    await new Promise((r) => setTimeout(r, 150));

    expect(rail.submits.get(instant)?.length).toBe(1);
    expect(rail.submits.get(throwing)?.length).toBe(1);
    expect(rail.submits.get(illegal)?.length).toBe(1);
    expect(rail.polls.get(illegal)).toBe(2);
    // Every submission carries the payout id as the bank's idempotency key.
    expect(rail.submits.get(instant)?.[0]?.idempotencyKey).toBe(instant);

    const a = await adminPayout(t.url, instant);
    expect(a.status).toBe('INITIATED');
    expect(a.rail_error).toMatch(/neither accepted nor refused/);
    const b = await adminPayout(t.url, throwing);
    expect(b.status).toBe('INITIATED');
    expect(b.rail_error).toMatch(/connection reset by the bank/);
    const c = await adminPayout(t.url, illegal);
    expect(c.status).toBe('PENDING');
    expect(c.rail_error).toMatch(/PROCESSING for a PENDING payout/);
    for (const id of [instant, throwing, illegal]) expect(await jobsOf(id)).toBe(0);

    const events = await timeline(throwing);
    expect(events.map((e) => e.type)).toEqual(['request', 'error']);
    expect(events[1]).toMatchObject({ actor: 'rail:misbehaving', reason: b.rail_error });
  });

  it('lets the operator settle a payout whose connector answer was refused (INITIATED → PROCESSING → FAILED)', async () => {
    const before = await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id);
    const id = await send(ACCOUNTS.instantSuccess);
    await eventually(async () => (await adminPayout(t.url, id)).rail_error, 8000);
    const res = await admin(t.url, 'POST', `/admin/v1/payouts/${id}/resolve`, { status: 'FAILED' });
    expect(res.status).toBe(200);
    await waitForStatus(t.url, id, 'REFUNDED');
    expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe(before);
    const events = await timeline(id);
    expect(events.map((e) => `${e.type}:${String(e.from)}>${String(e.to)}:${String(e.actor)}`)).toEqual([
      'request:null>INITIATED:merchant',
      'error:null>null:rail:misbehaving',
      'status:INITIATED>PROCESSING:operator:admin-token',
      'status:PROCESSING>FAILED:operator:admin-token',
      'status:FAILED>REFUNDED:worker',
    ]);
    expect(rail.submits.get(id)?.length).toBe(1);
    await expectLedgerOk(t.url);
  });

  it('a refused submission fails and is refunded by the lifecycle, keeping the reason', async () => {
    const id = await send(ACCOUNTS.refused);
    const done = await waitForStatus(t.url, id, 'REFUNDED');
    expect(done.failure_reason).toBe('Beneficiary account is closed');
    expect(done.status_message).toMatch(/Beneficiary account is closed/);
    expect(done.rail_error).toBeNull();
    expect(rail.submits.get(id)?.length).toBe(1);
    const events = await timeline(id);
    expect(events.filter((e) => e.type === 'status').map((e) => `${String(e.to)}:${String(e.actor)}`)).toEqual([
      'PROCESSING:rail:misbehaving',
      'FAILED:rail:misbehaving',
      'REFUNDED:worker',
    ]);
    expect(events.find((e) => e.to === 'FAILED')?.reason).toBe('Beneficiary account is closed');
  });

  it('takes notified outcomes through the same rules (the notification entry point)', async () => {
    const id = await send(ACCOUNTS.illegalPoll);
    await eventually(async () => (await adminPayout(t.url, id)).rail_error, 8000);
    const notifications = t.server.bankNotifications;
    // The connector's own notifications: a report from another connector would be refused (outsideReports.test.ts).
    const own = { connector: 'misbehaving', channel: 'test', failureIsReturn: true };
    expect(await notifications.report(id, { status: 'REFUNDED' }, own)).toEqual({ kind: 'error' });
    expect(await notifications.report(id, { status: 'SUCCESS', utr: 'UTR000111222' }, own)).toEqual({ kind: 'moved' });
    const done = await adminPayout(t.url, id);
    expect([done.status, done.utr_number, done.rail_error]).toEqual(['SUCCESS', 'UTR000111222', null]);
    expect(await notifications.report('PT00000000000000000000000000', { status: 'SUCCESS' }, own)).toEqual({
      kind: 'not_found',
    });
  });
});
