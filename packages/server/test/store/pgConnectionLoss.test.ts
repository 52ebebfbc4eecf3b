import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailable } from '../../src/domain/DatabaseUnavailable.ts';
import { createLogger } from '../../src/logger.ts';
import type { Database } from '../../src/store/Database.ts';
import { createPgDatabase } from '../../src/store/pgDatabase.ts';
import { freePort, spawnServer, type ChildServer } from '../support/childServer.ts';
import { http } from '../support/merchantClient.ts';
import { fundedMerchant, payoutRequest } from '../support/payoutFixtures.ts';
import { TcpProxy } from '../support/tcpProxy.ts';
import { findPostgresBin, TempPostgres } from '../support/tempPostgres.ts';
import { TEST_ADMIN_TOKEN } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * A PostgreSQL backend that goes away never takes the process with it (issue 20: during a failover a Payrail
 * instance exited on `Unhandled 'error' event`, 57P01, from a `pg` client). The backend is terminated while its
 * client is checked out, idle in the pool, and being handed from one caller to the next; then the postmaster is
 * killed; then the same against a spawned server. Each time the error is logged without secrets, the broken
 * client is discarded, the caller gets DatabaseUnavailable (HTTP 503), and the pool recovers by itself. Runs on a
 * cluster of its own.
 */
const bin = await findPostgresBin();
if (!bin && process.env.CI) throw new Error('CI=1 but no PostgreSQL binaries under /usr/lib/postgresql/*/bin');
if (!bin) console.warn('pgConnectionLoss.test.ts skipped: no initdb/pg_ctl under /usr/lib/postgresql/*/bin');

/** In every URL below: it must never reach a log (trust authentication never asks for it). */
const PASSWORD = 'pw-that-must-not-be-logged-4711';
/** ReadyForQuery, idle: the last message of a query's answer. */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

describe.skipIf(!bin)('a PostgreSQL connection lost at any moment', () => {
  let cluster: TempPostgres;
  let proxy: TcpProxy;
  const lines: string[] = [];
  const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
  const direct = () => `postgres://payrail:${PASSWORD}@127.0.0.1:${cluster.port}/postgres`;
  const viaProxy = () => `postgres://payrail:${PASSWORD}@127.0.0.1:${proxy.port}/postgres`;
  /** Connection losses logged so far. */
  const losses = () => lines.filter((l) => l.includes('database connection lost')).length;
  const open: Database[] = [];
  const database = (url: string, maxConnections = 4) => {
    const db = createPgDatabase({ url, maxConnections, logger, connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 });
    open.push(db);
    return db;
  };
  /** Runs `sql` on a connection of its own, straight to the cluster (not through the proxy). */
  const control = async (sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: cluster.url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  const terminate = (pid: number) => control('SELECT pg_terminate_backend($1)', [pid]);
  const pidOf = async (q: Pick<Database, 'query'>) =>
    (await q.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;

  beforeAll(async () => {
    cluster = await TempPostgres.create(bin as string);
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: cluster.port });
  }, 120_000);
  afterAll(async () => {
    for (const db of open) await db.close().catch(() => undefined);
    await proxy?.close();
    await cluster?.destroy();
    // Whatever was logged, the password never was.
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  it('survives a backend terminated while its client is checked out', async () => {
    const db = database(viaProxy());
    const before = losses();
    const failure = await db
      .transaction(async (tx) => {
        await terminate(await pidOf(tx));
        await eventually(() => losses() > before);
        await tx.query('SELECT 1');
      })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(DatabaseUnavailable);
    // The broken client was discarded: the next transaction gets a new connection.
    expect(await db.transaction((tx) => tx.query('SELECT 1 AS one'))).toMatchObject({ rows: [{ one: 1 }] });
    const logged = lines.filter((l) => l.includes('database connection lost')).at(-1) as string;
    expect(JSON.parse(logged)).toMatchObject({
      level: 40,
      code: '57P01',
      reason: 'terminating connection due to administrator command',
      msg: 'database connection lost; the client is discarded',
    });
  });

  it('survives a backend terminated while its client is idle in the pool', async () => {
    const db = database(viaProxy(), 1);
    const pid = await pidOf(db);
    const before = losses();
    await terminate(pid);
    await eventually(() => losses() > before);
    const again = await pidOf(db);
    expect(again).not.toBe(pid);
  });

  it('survives a backend terminated while the pool hands its client to a transaction', async () => {
    // One connection: a transaction waits for the client that a query is using. The query's last answer
    // (ReadyForQuery) and the backend's FATAL arrive in one read, so the pool hands the client over and the FATAL
    // is emitted before the transaction's code runs again: with no listener on the client, that was the crash.
    const db = database(viaProxy(), 1);
    const pid = await pidOf(db);
    proxy.hold();
    try {
      const query = db.query<{ one: number }>('SELECT 1 AS one');
      const transaction = db.transaction((tx) => tx.query<{ two: number }>('SELECT 2 AS two'));
      await eventually(() => proxy.held().some((b) => b.subarray(-READY_IDLE.length).equals(READY_IDLE)));
      await terminate(pid);
      await eventually(() => proxy.heldEnded().some(Boolean));
      const before = losses();
      proxy.flush();
      expect((await query).rows).toEqual([{ one: 1 }]);
      // The transaction was handed a client that died on the way: it is discarded and another one taken.
      expect((await transaction).rows).toEqual([{ two: 2 }]);
      expect(losses()).toBe(before + 1);
    } finally {
      proxy.flush();
    }
  });

  it('survives the postmaster killed under clients checked out, idle and querying', async () => {
    const db = database(direct(), 6);
    // Four connections idle in the pool.
    await Promise.all([0, 1, 2, 3].map(() => db.query('SELECT pg_sleep(0.05)')));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const transaction = db
      .transaction(async (tx) => {
        await tx.query('SELECT 1');
        entered();
        await gate;
        await tx.query('SELECT 2');
      })
      .catch((err: unknown) => err);
    await inside;
    const running = db.query('SELECT pg_sleep(60)').catch((err: unknown) => err);
    await eventually(
      async () => (await control(`SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'`)).length > 0,
    );
    const before = losses();
    await cluster.kill();

    expect(await running).toBeInstanceOf(DatabaseUnavailable);
    // The idle ones and the one in the transaction are told "unexpected postmaster exit" (57P01).
    await eventually(() => losses() >= before + 5);
    expect(lines.some((l) => l.includes('terminating connection due to unexpected postmaster exit'))).toBe(true);
    proceed();
    expect(await transaction).toBeInstanceOf(DatabaseUnavailable);
    // While the cluster is down: an answer at once, not a hang.
    const started = Date.now();
    expect(await db.query('SELECT 1').catch((err: unknown) => err)).toBeInstanceOf(DatabaseUnavailable);
    expect(Date.now() - started).toBeLessThan(2_000);

    await cluster.restart();
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(await db.transaction((tx) => tx.query('SELECT 2 AS two'))).toMatchObject({ rows: [{ two: 2 }] });
  });

  it('keeps a spawned server running and answering through lost backends and a killed postmaster', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payrail-connloss-'));
    const child: ChildServer = spawnServer({
      PORT: String(await freePort()),
      DATABASE_URL: direct(),
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      PAYRAIL_SANDBOX_STEP_MS: '50',
      PAYRAIL_WORKER_POLL_MS: '20',
      PAYRAIL_DB_CONNECT_TIMEOUT_MS: '1000',
      PAYRAIL_DB_STATEMENT_TIMEOUT_MS: '2000',
      PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
    });
    try {
      await child.ready(90_000);
      const party = await fundedMerchant(child.url, 'v2', '1000.00');
      const initiate = async () => {
        const plain = payoutRequest('nested', { wallet_id: party.merchant.wallet_id, amount: '1.00' });
        const res = await fetch(`${child.url}/payout/v1/initiate`, {
          method: 'POST',
          headers: { ...party.client.auth(), 'content-type': 'application/json' },
          body: JSON.stringify({ payload: party.client.encrypt(plain) }),
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, code: ((await res.json()) as { resp_code?: unknown }).resp_code };
      };

      // Payouts under load (requests and the worker's steps both use the pool) while every backend of the server
      // is terminated, again and again: some terminations land between one query's end and the next one's start.
      let stop = false;
      const answers: { status: number; code: unknown }[] = [];
      const load = Promise.all(
        [0, 1, 2].map(async () => {
          while (!stop) answers.push(await initiate());
        }),
      );
      const backends = `SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;
      for (let round = 0; round < 15; round++) {
        await eventually(async () => (await control(backends)).length > 0);
        await control(`SELECT pg_terminate_backend(pid) FROM (${backends}) b`);
      }
      stop = true;
      await load;
      expect(child.proc.exitCode).toBeNull();
      for (const a of answers) expect(['200/2000', '503/5000']).toContain(`${a.status}/${a.code}`);
      expect(answers.filter((a) => a.code === 2000).length).toBeGreaterThan(0);

      // The postmaster killed: /readyz says 503 at once; after the restart the server answers by itself.
      await cluster.kill();
      const down = await http(child.url, 'GET', '/readyz');
      expect(down.status).toBe(503);
      expect(await initiate()).toEqual({ status: 503, code: 5000 });
      await cluster.restart();
      await eventually(async () => (await http(child.url, 'GET', '/readyz')).status === 200, 15_000, 100);
      await eventually(async () => (await initiate()).code === 2000, 15_000, 100);
      expect(child.proc.exitCode).toBeNull();
      const { stdout, stderr } = child.output();
      expect(stdout).toContain('database connection lost');
      expect(stdout + stderr).not.toContain(PASSWORD);
      expect(stderr).not.toContain('Unhandled');
    } finally {
      await child.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
