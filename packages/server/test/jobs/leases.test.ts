import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { newId } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/logger.ts';
import { WebhookDispatcher } from '../../src/jobs/WebhookDispatcher.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { CallbackPolicy } from '../../src/services/CallbackPolicy.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { JobRepository, type Job } from '../../src/store/repositories/JobRepository.ts';
import { WebhookRepository, type WebhookDelivery } from '../../src/store/repositories/WebhookRepository.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';
import { WebhookReceiver } from '../support/webhookReceiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A lease that is over by the time the next statement runs. */
const SHORT_LEASE_MS = 1;

/**
 * Ownership of claimed rows (issue 10, finding 7): two claims driven by hand. The first claimer's lease
 * expires (or its row is rescheduled or replayed), a second claim takes the row, and then the stale first
 * claimer writes: nothing it writes may change the row.
 */
describe.each(ENGINES)('lease ownership on %s', (engine) => {
  const dbs = testDatabases(engine);
  let t: TestDatabase;
  let db: Database;
  let merchantId: string;
  let receiver: WebhookReceiver;
  let dispatcher: WebhookDispatcher;

  beforeAll(async () => {
    t = await dbs.fresh();
    db = t.db;
    await migrate(db);
    merchantId = (await new MerchantService(db, systemClock).create('Lease Test')).merchant.id;
    receiver = await new WebhookReceiver().start();
    dispatcher = new WebhookDispatcher(db, new CallbackPolicy(true), new Metrics(), createLogger('silent'), {
      retryScheduleMs: [60_000],
      timeoutMs: 2000,
      clock: systemClock,
    });
  });
  afterAll(async () => {
    await receiver.stop();
    await dbs.closeAll();
  });

  const jobRow = async (id: bigint) =>
    (
      await db.query<{ run_at: Date; locked_until: Date | null; last_error: string | null; attempts: number }>(
        'SELECT run_at, locked_until, last_error, attempts FROM jobs WHERE id = $1',
        [id],
      )
    ).rows[0];

  async function claimOne(subjectId: string, leaseMs: number): Promise<Job> {
    const jobs = await JobRepository.claim(db, 100, leaseMs);
    const job = jobs.find((j) => j.subjectId === subjectId);
    expect(job, `claimed ${subjectId}`).toBeDefined();
    return job as Job;
  }

  describe('jobs', () => {
    it('a stale holder can neither complete nor retry a job that another worker claimed after its lease expired', async () => {
      const subject = newId('payout', Date.now());
      await JobRepository.schedule(db, 'payout.advance', subject, 0);
      const stale = await claimOne(subject, SHORT_LEASE_MS);
      await sleep(20);
      const fresh = await claimOne(subject, 60_000);
      expect(fresh.id).toBe(stale.id);
      const before = await jobRow(fresh.id);

      expect(await JobRepository.retryLater(db, stale, 5, 'stale failure')).toBeFalsy();
      expect(await jobRow(fresh.id)).toEqual(before);
      expect(await JobRepository.complete(db, stale)).toBe(false);
      expect(await jobRow(fresh.id)).toEqual(before);

      // The current holder's writes go through.
      expect(await JobRepository.complete(db, fresh)).toBe(true);
      expect(await jobRow(fresh.id)).toBeUndefined();
    });

    it('a stale holder does not delete a job that was rescheduled and claimed again', async () => {
      const subject = newId('payout', Date.now());
      await JobRepository.schedule(db, 'payout.advance', subject, 0);
      const stale = await claimOne(subject, 60_000);
      // The subject moved meanwhile (e.g. an operator resolved the payout) and its next step was scheduled.
      await JobRepository.schedule(db, 'payout.advance', subject, 0);
      const fresh = await claimOne(subject, 60_000);
      expect(fresh.attempts).toBe(stale.attempts);

      expect(await JobRepository.complete(db, stale)).toBe(false);
      expect(await jobRow(fresh.id)).toBeDefined();
      expect(await JobRepository.retryLater(db, stale, 5, 'stale failure')).toBeFalsy();
      expect((await jobRow(fresh.id))?.last_error).toBeNull();
      expect(await JobRepository.complete(db, fresh)).toBe(true);
    });

    it('a reschedule takes the job from its holder even before anyone claims it again', async () => {
      const subject = newId('payout', Date.now());
      await JobRepository.schedule(db, 'payout.advance', subject, 0);
      const stale = await claimOne(subject, 60_000);
      await JobRepository.schedule(db, 'payout.advance', subject, 60_000);
      expect(await JobRepository.complete(db, stale)).toBe(false);
      expect(await jobRow(stale.id)).toBeDefined();
    });
  });

  describe('webhook deliveries', () => {
    let n = 0;
    async function newDelivery(): Promise<{ id: string; path: string }> {
      const path = `/lease/${n++}`;
      const id = newId('event', Date.now());
      await WebhookRepository.insert(db, {
        id,
        merchantId,
        subjectId: newId('payout', Date.now()),
        type: 'payout.processing',
        url: receiver.url + path,
        scheme: 'v2',
        snapshot: JSON.stringify({ transaction_id: 'x', status: 'PROCESSING' }),
        createdAt: new Date(),
      });
      return { id, path };
    }

    async function claimDelivery(id: string, leaseMs: number): Promise<WebhookDelivery> {
      const claimed = (await WebhookRepository.claim(db, 100, leaseMs)).find((d) => d.id === id);
      expect(claimed, `claimed ${id}`).toBeDefined();
      return claimed as WebhookDelivery;
    }

    const state = async (id: string) => {
      const d = await WebhookRepository.findById(db, id);
      const attempts = (await WebhookRepository.attempts(db, [id])).get(id) ?? [];
      return { state: d?.state, attempts: d?.attempts, lastStatus: d?.lastStatus, recorded: attempts.length };
    };

    it('a stale attempt does not turn a delivered webhook back to pending', async () => {
      const { id, path } = await newDelivery();
      const stale = await claimDelivery(id, SHORT_LEASE_MS);
      await sleep(20);
      const fresh = await claimDelivery(id, 60_000);
      // The fresh holder delivers; the stale holder's attempt then meets a failing receiver.
      receiver.respond = (hook) => (hook.path === path && receiver.at(path).length > 1 ? 500 : 200);
      await dispatcher.deliver(fresh);
      expect(await state(id)).toEqual({ state: 'delivered', attempts: 1, lastStatus: 200, recorded: 1 });

      await dispatcher.deliver(stale);
      expect(receiver.at(path)).toHaveLength(2);
      expect(await state(id)).toEqual({ state: 'delivered', attempts: 1, lastStatus: 200, recorded: 1 });
    });

    it('a stale attempt does not overwrite the outcome of a newer claim still in flight', async () => {
      const { id } = await newDelivery();
      const stale = await claimDelivery(id, SHORT_LEASE_MS);
      await sleep(20);
      await claimDelivery(id, 60_000);
      receiver.respond = () => 200;
      await dispatcher.deliver(stale);
      // Still claimed by the newer holder: not delivered by the stale one, no attempt counted.
      expect(await state(id)).toEqual({ state: 'pending', attempts: 0, lastStatus: null, recorded: 0 });
    });

    it('an operator replay revokes the lease of an attempt in flight', async () => {
      const { id } = await newDelivery();
      const inFlight = await claimDelivery(id, 60_000);
      expect(await WebhookRepository.requeue(db, id)).toBe(true);
      receiver.respond = () => 500;
      await dispatcher.deliver(inFlight);
      // The in-flight attempt is not recorded; the replay is due now for whoever claims it next.
      expect(await state(id)).toEqual({ state: 'pending', attempts: 0, lastStatus: null, recorded: 0 });
      const replay = await claimDelivery(id, 60_000);
      receiver.respond = () => 200;
      await dispatcher.deliver(replay);
      expect(await state(id)).toEqual({ state: 'delivered', attempts: 1, lastStatus: 200, recorded: 1 });
    });
  });
});
