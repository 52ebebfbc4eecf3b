import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { systemClock } from '../../src/clock.ts';
import { PayoutStepper } from '../../src/jobs/PayoutStepper.ts';
import { postWebhook } from '../../src/jobs/postWebhook.ts';
import { WebhookDispatcher } from '../../src/jobs/WebhookDispatcher.ts';
import { Worker } from '../../src/jobs/Worker.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import type { BankConnector, RailOutcome, SubmitAnswer, Transfer } from '../../src/rails/BankConnector.ts';
import { ConnectorRegistry } from '../../src/rails/ConnectorRegistry.ts';
import { CallbackPolicy } from '../../src/services/CallbackPolicy.ts';
import { PayoutLifecycle } from '../../src/services/PayoutLifecycle.ts';
import type { Database, Queryable } from '../../src/store/Database.ts';
import { JobRepository, type Job } from '../../src/store/repositories/JobRepository.ts';
import { expectLedgerOk, fundedMerchant, initiateOk, payoutRequest, type Funded } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

const IFSC = 'HDFC0001234';
const SUCCEEDS = '400000000001';
const FAILS = '400000000002';

/** An in-process bank (like the sandbox): takes every transfer; a poll says SUCCESS, or FAILED for FAILS. */
class CountingRail implements BankConnector {
  readonly name: string = 'counting';
  readonly submitDelayMs = 0;
  readonly submits: Transfer[] = [];
  readonly polls: Transfer[] = [];

  async verifyBeneficiary(): Promise<boolean> {
    return true;
  }

  async submit(transfer: Transfer): Promise<SubmitAnswer> {
    this.submits.push(transfer);
    return { accepted: true, reference: `CT-${transfer.idempotencyKey}` };
  }

  async poll(transfer: Transfer): Promise<RailOutcome | null> {
    this.polls.push(transfer);
    if (transfer.accountNumber === FAILS) return { status: 'FAILED', reason: 'declined by the test bank' };
    return { status: 'SUCCESS', utr: `UTR${transfer.payoutId.slice(-12)}` };
  }

  pollDelayMs(): number | null {
    return 0;
  }

  submitsOf(id: string) {
    return this.submits.filter((t) => t.payoutId === id);
  }
}

/** Another connector than the payouts' (the server's connectors changed since they were routed). */
class OtherRail extends CountingRail {
  override readonly name = 'other';
}

/** The payouts' connector, unreachable: every poll throws. */
class UnreachableRail extends CountingRail {
  override async poll(): Promise<RailOutcome | null> {
    throw new Error('the bank is unreachable');
  }
}

/** A database whose every statement is counted (inside transactions too). */
function counting(db: Database): { db: Database; statements: () => number; reset: () => void } {
  let n = 0;
  const wrap = (q: Queryable): Queryable => ({
    query: (sql, params) => {
      n++;
      return q.query(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  return {
    db: {
      ...wrap(db),
      engine: db.engine,
      close: () => db.close(),
      transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    },
    statements: () => n,
    reset: () => (n = 0),
  };
}

/**
 * The worker's set-based steps (issue 20, "Drain"): a claimed batch of payout steps is read, submitted and recorded
 * in a few statements whatever its size, without giving up one effect per job, leases, per-transaction webhook order
 * or crash safety. The server's own worker is stopped; these tests drive steppers and workers of their own.
 */
describe.each(ENGINES)('batched payout steps on %s', (engine) => {
  let t: TestServer;
  let f: Funded;
  const rail = new CountingRail();
  const lifecycle = new PayoutLifecycle(new ConnectorRegistry([rail], rail.name), new Metrics(), {
    refundDelayMs: 0,
    clock: systemClock,
  });
  const registry = new ConnectorRegistry([rail], rail.name);
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestServer(engine, { rail });
    await t.server.worker.stop();
    f = await fundedMerchant(t.url, 'v2', '100000.00');
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await t?.close();
  });

  const stepper = (db: Database = t.db) => new PayoutStepper(db, registry, lifecycle, systemClock);

  async function payouts(n: number, account = SUCCEEDS, path = '/batched'): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const p = await initiateOk(
        f.client,
        payoutRequest('nested', {
          wallet_id: f.merchant.wallet_id,
          amount: '1.00',
          beneficiary_ifsc: IFSC,
          beneficiary_acc_number: account,
          callback_url: `${receiver.url}${path}`,
        }),
      );
      ids.push(p.transaction_id as string);
    }
    return ids;
  }

  /** Claims the due jobs of `ids` (others' jobs are put back at once). */
  async function claim(ids: string[], leaseMs = 60_000): Promise<Job[]> {
    const jobs = await JobRepository.claim(t.db, 1000, leaseMs);
    const mine = jobs.filter((j) => ids.includes(j.subjectId));
    for (const j of jobs) if (!ids.includes(j.subjectId)) await JobRepository.retryLater(t.db, j, 0, 'not this test');
    return mine;
  }

  const statusOf = async (ids: string[]) =>
    (
      await t.db.query<{ id: string; status: string }>('SELECT id, status FROM payouts WHERE id = ANY($1::text[])', [
        ids,
      ])
    ).rows.reduce<Record<string, string>>((acc, r) => ({ ...acc, [r.id]: r.status }), {});
  const historyOf = async (id: string) =>
    (
      await t.db.query<{ type: string; to_status: string | null }>(
        'SELECT type, to_status FROM transaction_events WHERE subject_id = $1 ORDER BY id',
        [id],
      )
    ).rows.map((r) => (r.type === 'status' ? r.to_status : r.type));
  const eventsOf = async (id: string) =>
    (
      await t.db.query<{ type: string }>('SELECT type FROM webhook_deliveries WHERE subject_id = $1 ORDER BY seq', [id])
    ).rows.map((r) => r.type);
  const railErrorOf = async (id: string) =>
    (await t.db.query<{ e: string | null }>('SELECT rail_error AS e FROM payouts WHERE id = $1', [id])).rows[0]?.e;
  const errorsOf = async (id: string) =>
    (
      await t.db.query<{ reason: string; actor: string }>(
        `SELECT reason, actor FROM transaction_events WHERE subject_id = $1 AND type = 'error' ORDER BY id`,
        [id],
      )
    ).rows;
  const jobsOf = async (ids: string[]) =>
    Number(
      (await t.db.query<{ n: bigint }>('SELECT count(*) AS n FROM jobs WHERE subject_id = ANY($1::text[])', [ids]))
        .rows[0]?.n,
    );

  it('records a batch of 40 submissions in the same few statements as a batch of one', async () => {
    const c = counting(t.db);
    const one = await payouts(1);
    const oneJobs = await claim(one);
    c.reset();
    await Promise.all(stepper(c.db).runBatch(oneJobs));
    const forOne = c.statements();

    const forty = await payouts(40);
    const fortyJobs = await claim(forty);
    expect(fortyJobs).toHaveLength(40);
    c.reset();
    const results = await Promise.allSettled(stepper(c.db).runBatch(fortyJobs));
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    // Read, claim the submissions, then one transaction: lock, delete the jobs, move, webhook events, next steps.
    expect(c.statements()).toBe(forOne);
    expect(c.statements()).toBeLessThanOrEqual(8);
    expect(Object.values(await statusOf(forty))).toEqual(Array(40).fill('PROCESSING'));
    for (const id of forty) {
      expect(rail.submitsOf(id)).toHaveLength(1);
      expect(await historyOf(id)).toEqual(['PROCESSING']);
      expect(await eventsOf(id)).toEqual(['payout.processing']);
    }
    // Each payout's next step (its poll) is scheduled once.
    expect(await jobsOf(forty)).toBe(40);
  });

  it('a transition the database refuses costs only its own payout: the others move once, it is retried', async () => {
    const ids = await payouts(6);
    await Promise.all(stepper().runBatch(await claim(ids)));
    expect(Object.values(await statusOf(ids))).toEqual(Array(6).fill('PROCESSING'));
    const refused = ids[2] as string;
    // A trigger of the test's refuses one payout's SUCCESS, as the transition guard refuses an illegal move.
    await t.db.exec(`
      CREATE FUNCTION refuse_one_for_test() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id = '${refused}' AND NEW.status = 'SUCCESS' THEN
          RAISE EXCEPTION 'refused for the test' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_one_for_test BEFORE UPDATE ON payouts FOR EACH ROW EXECUTE FUNCTION refuse_one_for_test();
    `);
    let jobs: Job[];
    try {
      jobs = await claim(ids);
      expect(jobs).toHaveLength(6);
      const results = await Promise.allSettled(stepper().runBatch(jobs));
      expect(results.map((r) => r.status)).toEqual(
        jobs.map((j) => (j.subjectId === refused ? 'rejected' : 'fulfilled')),
      );
    } finally {
      await t.db.exec('DROP TRIGGER refuse_one_for_test ON payouts; DROP FUNCTION refuse_one_for_test();');
    }
    const statuses = await statusOf(ids);
    for (const id of ids) {
      expect(statuses[id]).toBe(id === refused ? 'PROCESSING' : 'SUCCESS');
      expect(await historyOf(id)).toEqual(id === refused ? ['PROCESSING'] : ['PROCESSING', 'SUCCESS']);
      expect(await eventsOf(id)).toEqual(
        id === refused ? ['payout.processing'] : ['payout.processing', 'payout.success'],
      );
    }
    // The refused step kept its job (the worker puts it back with its backoff); the others' jobs are gone.
    expect(await jobsOf(ids)).toBe(1);
    const held = jobs.find((j) => j.subjectId === refused) as Job;
    expect(await JobRepository.retryLater(t.db, held, 0, 'refused for the test')).toBe(true);

    // Run again without the refusal: it moves once, and nothing of the others is applied a second time.
    await Promise.all(stepper().runBatch(await claim(ids)));
    for (const id of ids) {
      expect(await historyOf(id)).toEqual(['PROCESSING', 'SUCCESS']);
      expect(await eventsOf(id)).toEqual(['payout.processing', 'payout.success']);
      expect(rail.submitsOf(id)).toHaveLength(1);
    }
    expect(rail.polls.filter((p) => p.payoutId === refused)).toHaveLength(2);
    expect(await jobsOf(ids)).toBe(0);
    await expectLedgerOk(t.url);
  });

  it('a crash in the middle of a batch leaves every job to be claimed again once its lease is over', async () => {
    const ids = await payouts(5);
    let crashed = false;
    // The process dies inside the recording transaction: it is rolled back, and nothing after it ever runs.
    const dying: Database = {
      ...t.db,
      engine: t.db.engine,
      query: (sql, params) => t.db.query(sql, params),
      exec: (sql) => t.db.exec(sql),
      close: () => t.db.close(),
      transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
        t.db
          .transaction(async (tx) => {
            await fn(tx);
            throw new Error('the process died here');
          })
          .catch(() => {
            crashed = true;
            return new Promise<T>(() => {});
          }),
    };
    void stepper(dying).runBatch(await claim(ids));
    await eventually(() => crashed, 5000, 10);

    // Nothing of the batch was kept but the submissions recorded before the bank was asked.
    expect(Object.values(await statusOf(ids))).toEqual(Array(5).fill('INITIATED'));
    for (const id of ids) {
      expect(await historyOf(id)).toEqual([]);
      expect(await eventsOf(id)).toEqual([]);
      expect(rail.submitsOf(id).map((s) => s.attempt)).toEqual([1]);
    }
    // Under lease: no other worker takes the jobs.
    expect(await claim(ids)).toEqual([]);
    expect(await jobsOf(ids)).toBe(5);

    // The lease runs out (as it would a minute later).
    await t.db.query(`UPDATE jobs SET locked_until = now() - interval '1 second' WHERE subject_id = ANY($1::text[])`, [
      ids,
    ]);
    const again = await claim(ids);
    expect(again).toHaveLength(5);
    await Promise.all(stepper().runBatch(again));
    for (const id of ids) {
      // The lost answer is recovered by asking the bank again with the same key, and applied once.
      expect(rail.submitsOf(id).map((s) => [s.attempt, s.idempotencyKey])).toEqual([
        [1, id],
        [2, id],
      ]);
      expect(await historyOf(id)).toEqual(['PROCESSING']);
      expect(await eventsOf(id)).toEqual(['payout.processing']);
    }
    expect(await jobsOf(ids)).toBe(5);
    // Leave nothing due for the next test.
    await Promise.all(stepper().runBatch(await claim(ids)));
  });

  it("a payout whose connector is not configured here waits for the operator with the worker's rail_error", async () => {
    const [id] = (await payouts(1)) as [string];
    // This server's connectors changed since the payout was routed: its connector is not among them.
    const elsewhere = new ConnectorRegistry([new OtherRail()], 'other');
    const results = await Promise.allSettled(
      new PayoutStepper(t.db, elsewhere, lifecycle, systemClock).runBatch(await claim([id])),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled']);
    expect((await statusOf([id]))[id]).toBe('INITIATED');
    const error = 'connector counting is not configured on this server (PAYRAIL_CONNECTOR, PAYRAIL_CONNECTOR_ROUTES)';
    expect(await railErrorOf(id)).toBe(error);
    expect(await errorsOf(id)).toEqual([{ reason: error, actor: 'worker' }]);
    expect(rail.submitsOf(id)).toEqual([]);
    // The job is done: nothing moves the payout by itself any more.
    expect(await jobsOf([id])).toBe(0);
  });

  it('a poll that throws keeps the error on the payout and its job for the worker to retry', async () => {
    const [id] = (await payouts(1)) as [string];
    await Promise.all(stepper().runBatch(await claim([id])));
    expect((await statusOf([id]))[id]).toBe('PROCESSING');
    const unreachable = new ConnectorRegistry([new UnreachableRail()], 'counting');
    const jobs = await claim([id]);
    const results = await Promise.allSettled(
      new PayoutStepper(t.db, unreachable, lifecycle, systemClock).runBatch(jobs),
    );
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual([
      'Error: the bank is unreachable',
    ]);
    expect((await statusOf([id]))[id]).toBe('PROCESSING');
    expect(await railErrorOf(id)).toBe('poll failed: the bank is unreachable');
    expect(await errorsOf(id)).toEqual([{ reason: 'poll failed: the bank is unreachable', actor: 'rail:counting' }]);
    expect(await jobsOf([id])).toBe(1);

    // The worker puts the job back; the bank answers this time, and the move clears the error.
    expect(await JobRepository.retryLater(t.db, jobs[0] as Job, 0, 'the bank is unreachable')).toBe(true);
    await Promise.all(stepper().runBatch(await claim([id])));
    expect((await statusOf([id]))[id]).toBe('SUCCESS');
    expect(await railErrorOf(id)).toBeNull();
    expect(await historyOf(id)).toEqual(['PROCESSING', 'error', 'SUCCESS']);
  });

  it('a batch skips the steps whose job another claim took over, and applies the rest', async () => {
    const ids = await payouts(4);
    const jobs = await claim(ids, 1);
    // One job's lease ran out and another worker claimed it meanwhile.
    const taken = ids[1] as string;
    await t.db.query(`UPDATE jobs SET lease_owner = 'another-worker' WHERE subject_id = $1`, [taken]);
    const results = await Promise.allSettled(stepper().runBatch(jobs));
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    const statuses = await statusOf(ids);
    for (const id of ids) {
      expect(statuses[id]).toBe(id === taken ? 'INITIATED' : 'PROCESSING');
      expect(await eventsOf(id)).toEqual(id === taken ? [] : ['payout.processing']);
    }
    // The other worker still holds its job.
    expect(
      (await t.db.query<{ o: string }>('SELECT lease_owner AS o FROM jobs WHERE subject_id = $1', [taken])).rows[0]?.o,
    ).toBe('another-worker');
    await t.db.query(`UPDATE jobs SET lease_owner = NULL, locked_until = NULL WHERE subject_id = ANY($1::text[])`, [
      ids,
    ]);
    await Promise.all(stepper().runBatch(await claim(ids)));
    await Promise.all(stepper().runBatch(await claim(ids)));
    expect(Object.values(await statusOf(ids))).toEqual(Array(4).fill('SUCCESS'));
  });

  it("keeps each transaction's webhook order with batched claims, sends and records, through retries", async () => {
    const succeeding = await payouts(6, SUCCEEDS, '/order');
    const failing = await payouts(6, FAILS, '/order');
    const ids = [...succeeding, ...failing];
    // Every event's first attempt fails: the next event of its transaction must wait for its retry to succeed.
    const seen = new Set<string>();
    receiver.respond = (hook) => {
      if (hook.path !== '/order') return 200;
      const id = (JSON.parse(hook.body) as { id: string }).id;
      if (seen.has(id)) return 200;
      seen.add(id);
      return 500;
    };
    const dispatcher = new WebhookDispatcher(t.db, new CallbackPolicy(true), new Metrics(), createLogger('silent'), {
      retryScheduleMs: [0, 0, 0],
      timeoutMs: 5000,
      clock: systemClock,
    });
    // Only this test's payouts are the worker's to step: the earlier tests' jobs are out of the way.
    await t.db.query(`UPDATE jobs SET run_at = now() + interval '1 hour' WHERE NOT subject_id = ANY($1::text[])`, [
      ids,
    ]);
    const worker = new Worker(t.db, { 'payout.advance': stepper() }, dispatcher, createLogger('silent'), {
      pollMs: 20,
      maxJobs: 8,
      maxDeliveries: 8,
      webhookTimeoutMs: 5000,
    });
    worker.start();
    try {
      await eventually(async () => {
        const s = await statusOf(ids);
        if (!ids.every((id) => s[id] === 'SUCCESS' || s[id] === 'REFUNDED')) return false;
        const { rows } = await t.db.query<{ n: bigint }>(
          `SELECT count(*) AS n FROM webhook_deliveries WHERE subject_id = ANY($1::text[]) AND state <> 'delivered'`,
          [ids],
        );
        return rows[0]?.n === 0n;
      }, 30_000);
    } finally {
      await worker.stop();
    }
    const order = await t.db.query<{ id: string; subject_id: string }>(
      'SELECT id, subject_id FROM webhook_deliveries WHERE subject_id = ANY($1::text[]) ORDER BY seq',
      [ids],
    );
    const arrivals = receiver.at('/order').map((h) => JSON.parse(h.body) as { id: string });
    for (const id of ids) {
      const events = order.rows.filter((r) => r.subject_id === id).map((r) => r.id);
      expect(events).toHaveLength(succeeding.includes(id) ? 2 : 3);
      // Arrivals of this transaction's events: each twice (500, then 200), never one before the previous is done.
      const got = arrivals.filter((a) => events.includes(a.id)).map((a) => a.id);
      expect(got).toEqual(events.flatMap((e) => [e, e]));
    }
    await expectLedgerOk(t.url);
  });
});

describe('webhook connections', () => {
  let server: Server;
  let connections = 0;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reuses a kept-alive connection per receiver and its checked addresses, never across address sets', async () => {
    const post = (host: string, addresses: { address: string; family: 4 | 6 }[]) =>
      postWebhook(new URL(`${url.replace('127.0.0.1', host)}/hook`), {}, '{}', {
        addresses,
        signal: AbortSignal.timeout(2000),
      });
    const loopback = [{ address: '127.0.0.1', family: 4 as const }];
    const before = connections;
    for (let i = 0; i < 5; i++) expect((await post('keepalive.example', loopback)).status).toBe(200);
    expect(connections - before).toBe(1);
    // The same host checked to another address set: a connection of its own.
    expect((await post('keepalive.example', [...loopback, { address: '127.0.0.2', family: 4 }])).status).toBe(200);
    expect(connections - before).toBe(2);
    // A receiver that closed its idle connection meanwhile: the webhook goes over a new one, not lost.
    server.closeIdleConnections();
    await new Promise((r) => setTimeout(r, 20));
    expect((await post('keepalive.example', loopback)).status).toBe(200);
    expect(connections - before).toBe(3);
  });
});
