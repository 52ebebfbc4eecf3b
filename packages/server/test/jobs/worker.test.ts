import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { WebhookDispatcher } from '../../src/jobs/WebhookDispatcher.ts';
import { Worker } from '../../src/jobs/Worker.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { CallbackPolicy } from '../../src/services/CallbackPolicy.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { JobRepository, type Job } from '../../src/store/repositories/JobRepository.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';

/**
 * The worker drains a backlog at the speed of the work, not one claim per poll interval (issue 13: 10,000 sandbox
 * payouts took minutes when each pass waited PAYRAIL_WORKER_POLL_MS), and still waits the interval when idle.
 */
describe.each(ENGINES)('worker backlog on %s', (engine) => {
  const dbs = testDatabases(engine);
  let t: TestDatabase;
  let db: Database;
  let dispatcher: WebhookDispatcher;

  beforeAll(async () => {
    t = await dbs.fresh();
    db = t.db;
    await migrate(db);
    dispatcher = new WebhookDispatcher(db, new CallbackPolicy(true), new Metrics(), createLogger('silent'), {
      retryScheduleMs: [60_000],
      timeoutMs: 2000,
      clock: systemClock,
    });
  });
  afterAll(() => dbs.closeAll());

  it('runs 40 due jobs with 4 slots and a 10 s poll interval in well under one interval', async () => {
    for (let i = 0; i < 40; i++) await JobRepository.schedule(db, 'collection.expire', `CTBACKLOG${i}`, 0);
    const done: string[] = [];
    const handler = async (job: Job) => {
      await new Promise((r) => setTimeout(r, 5));
      await JobRepository.complete(db, job);
      done.push(job.subjectId);
    };
    const worker = new Worker(db, { 'collection.expire': handler }, dispatcher, createLogger('silent'), {
      pollMs: 10_000,
      maxJobs: 4,
      maxDeliveries: 4,
      webhookTimeoutMs: 2000,
    });
    const started = Date.now();
    worker.start();
    try {
      while (done.length < 40 && Date.now() - started < 8000) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.stop();
    }
    // Without the backlog rule this is ten passes, one per 10 s poll: 90 s.
    expect(done).toHaveLength(40);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(new Set(done).size).toBe(40);
  });

  it('waits the poll interval when a pass found less than it had room for', async () => {
    let runs = 0;
    const handler = async (job: Job) => {
      runs++;
      await JobRepository.complete(db, job);
    };
    const worker = new Worker(db, { 'collection.expire': handler }, dispatcher, createLogger('silent'), {
      pollMs: 10_000,
      maxJobs: 4,
      maxDeliveries: 4,
      webhookTimeoutMs: 2000,
    });
    await JobRepository.schedule(db, 'collection.expire', 'CTIDLE1', 0);
    worker.start();
    try {
      const started = Date.now();
      while (runs < 1 && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 20));
      expect(runs).toBe(1);
      // A job due now, after the first pass: the worker is idle until its next poll, 10 s away.
      await JobRepository.schedule(db, 'collection.expire', 'CTIDLE2', 0);
      // Each pass takes a few milliseconds: a worker that did not wait would have run it many times over by now.
      await new Promise((r) => setTimeout(r, 200));
      expect(runs).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});
