import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../packages/server/src/store/migrate.ts';
import { createPgDatabase } from '../packages/server/src/store/pgDatabase.ts';
import {
  cpuMsOf,
  freePort,
  parseResult,
  rssOf,
  sleep,
  spawnTs,
  stopChild,
  waitHealthy,
  type Child,
  type LoadResult,
} from './common.ts';
import type { DriverMerchant, DriverPlan } from './driver.ts';
import type { SqlBaselinePlan } from './sqlBaseline.ts';

/**
 * `npm run bench`: the Payrail server as a child process (PGlite in a temp directory; PostgreSQL in a fresh
 * schema when BENCH_DATABASE_URL is set), driven over loopback by autocannon in another process, against two
 * baselines measured in the same run. Prints progress, then one table.
 *
 * Environment: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_MERCHANTS (default 100), BENCH_DATABASE_URL, BENCH_ENGINES (e.g. "postgres" to run one engine),
 * BENCH_LOG_LEVEL (server LOG_LEVEL, default warn), BENCH_SERVER_NODE_FLAGS (e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/prof" to profile the server).
 */

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 100);
const WARMUP = Math.max(1, Math.min(3, Math.round(DURATION / 5)));
/** PGlite is WebAssembly: V8 tiers its hot functions up over several seconds, so every process warms up longer. */
const warmupFor = (engine: Engine) => (engine === 'pglite' ? Math.max(WARMUP, Math.round(DURATION * 0.6)) : WARMUP);
const ADMIN_TOKEN = `bench-${randomBytes(8).toString('hex')}`;
/** The server's PostgreSQL pool size (pgDatabase.ts); the SQL baseline gets the same. */
const SERVER_POOL_SIZE = 20;
const TARGETS = { initiation: 0.8, hotWallet: 400, status: 0.6, halfLoadP99: 20, rssMb: 250 };

type Engine = 'pglite' | 'postgres';

const log = (engine: Engine | '', message: string) =>
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${engine ? `[${engine}] ` : ''}${message}\n`);

const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms` +
  (r.failures ? `, ${r.failures} FAILED` : '');

/** Child processes get a clean environment: nothing of ours or of the caller's Payrail settings leaks in. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAYRAIL_') && !k.startsWith('BENCH_') && !['DATABASE_URL', 'REDIS_URL'].includes(k)) env[k] = v;
  }
  return env;
}

function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function adminSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function call(url: string, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

interface BenchMerchant extends DriverMerchant {
  merchantId: string;
}

async function createMerchant(url: string, name: string, credit: string): Promise<BenchMerchant> {
  const m = await call(url, 'POST', '/admin/v1/merchants', { name });
  await call(url, 'POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: credit });
  const res = await fetch(`${url}/v1/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: m.api_key, secretKey: m.secret_key }),
  });
  const tokenBody = (await res.json()) as { data: string };
  const { decryptJsonObject } = await import('@payrail/protocol');
  const keys = { apiKey: String(m.api_key), secretKey: String(m.secret_key) };
  const { token } = decryptJsonObject(tokenBody.data, 'v2', keys) as { token: string };
  return { merchantId: String(m.merchant_id), walletId: String(m.wallet_id), token, ...keys };
}

/** Runs a load generator (or baseline) child to completion and returns its result. */
async function runChild(entry: string, plan: unknown): Promise<LoadResult> {
  const file = join(tmpdir(), `payrail-bench-plan-${randomBytes(6).toString('hex')}.json`);
  await writeFile(file, JSON.stringify(plan));
  try {
    const child = spawnTs(entry, [file], baseEnv());
    const code = await child.exited;
    if (code !== 0) throw new Error(`${entry} exited with ${code}:\n${child.output.join('').slice(-4000)}`);
    return parseResult(child);
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * The load generator: one long-lived process (bench/driver.ts) for the whole run, so that no scenario pays for
 * its start-up; it receives plans over IPC and runs them one at a time.
 */
class Driver {
  private readonly child: Child;
  private readonly pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  readonly ready: Promise<void>;

  constructor() {
    this.child = spawnTs('bench/driver.ts', [], baseEnv(), [], true);
    let markReady: () => void = () => undefined;
    this.ready = new Promise((resolve) => (markReady = resolve));
    this.child.process.on('message', (m: { ready?: boolean; id?: number; result?: LoadResult; error?: string }) => {
      if (m.ready) return markReady();
      const waiter = this.pending.get(m.id as number);
      this.pending.delete(m.id as number);
      if (m.error) waiter?.reject(new Error(m.error));
      else waiter?.resolve(m.result as LoadResult);
    });
    void this.child.exited.then((code) => {
      for (const waiter of this.pending.values()) {
        waiter.reject(new Error(`driver exited (${code}):\n${this.child.output.join('').slice(-4000)}`));
      }
    });
  }

  async run(plan: DriverPlan): Promise<LoadResult> {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.process.send({ id, plan });
    });
  }

  stop() {
    this.child.process.disconnect();
    return this.child.exited;
  }
}

let driver: Driver;
const drive = (plan: DriverPlan) => driver.run(plan);

/** Samples a process's RSS every 200 ms; `peak(from, to)` is the largest sample in a time window. */
function rssSampler(pid: number) {
  const samples: { at: number; bytes: number }[] = [];
  const timer = setInterval(() => {
    const bytes = rssOf(pid);
    if (bytes !== null) samples.push({ at: Date.now(), bytes });
  }, 200);
  return {
    peak: (from = 0, to = Infinity) =>
      samples.filter((s) => s.at >= from && s.at <= to).reduce((max, s) => Math.max(max, s.bytes), 0),
    stop: () => clearInterval(timer),
  };
}

interface Measured extends LoadResult {
  /** Server CPU time per request, in ms (PGlite runs inside the server process). */
  cpuMsPerReq?: number;
  cpuPercent?: number;
}

interface EngineResults {
  engine: Engine;
  initMany: Measured;
  hot: Measured;
  half: Measured & { rate: number };
  status: Measured;
  baselineA: LoadResult;
  baselineB: LoadResult;
  rssPeakMb: number;
  rssAfterMb: number;
}

async function benchEngine(engine: Engine): Promise<EngineResults> {
  const dataDir = await mkdtemp(join(tmpdir(), 'payrail-bench-'));
  const cleanups: (() => Promise<void>)[] = [() => rm(dataDir, { recursive: true, force: true })];
  let server: Child | undefined;
  try {
    let pgUrl: string | undefined;
    let schema: string | undefined;
    if (engine === 'postgres') {
      const root = process.env.BENCH_DATABASE_URL as string;
      schema = `bench_${randomBytes(5).toString('hex')}`;
      await adminSql(root, `CREATE SCHEMA ${schema}`);
      cleanups.push(() => adminSql(root, `DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      pgUrl = withSearchPath(root, schema);
    }

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    log(engine, `starting the server on ${url}${schema ? ` (schema ${schema})` : ` (data ${dataDir})`}`);
    const flags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    server = spawnTs(
      'packages/server/src/main.ts',
      [],
      {
        ...baseEnv(),
        PORT: String(port),
        HOST: '127.0.0.1',
        PAYRAIL_DATA_DIR: dataDir,
        PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
        PAYRAIL_RATE_LIMIT_PER_MINUTE: '1000000000',
        PAYRAIL_TOKEN_TTL_SECONDS: '7200',
        // Payouts stay INITIATED: the worker's later steps would otherwise compete with the initiations measured.
        PAYRAIL_SANDBOX_STEP_MS: '3600000',
        ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
      },
      flags,
    );
    const started = Date.now();
    await waitHealthy(`${url}/healthz`, server);
    log(engine, `server ready in ${((Date.now() - started) / 1000).toFixed(1)} s, pid ${server.pid}`);
    const rss = rssSampler(server.pid);

    log(engine, `creating ${MERCHANTS} merchants and a hot wallet`);
    const merchants: BenchMerchant[] = [];
    for (let i = 0; i < MERCHANTS; i += 10) {
      const batch = Array.from({ length: Math.min(10, MERCHANTS - i) }, (_, j) =>
        createMerchant(url, `Bench ${i + j}`, '10000000.00'),
      );
      merchants.push(...(await Promise.all(batch)));
    }
    const hot = await createMerchant(url, 'Bench Hot', '100000000.00');

    // Bodies are encrypted ahead of each run: enough for 1.5 × the last measured rate (the driver makes more on
    // the fly should a run outpace them).
    let lastRps = 1500;
    const measure = async (label: string, plan: DriverPlan): Promise<Measured> => {
      const cpuBefore = cpuMsOf(server?.pid as number);
      const from = Date.now();
      const result = await drive(plan);
      if (plan.kind === 'initiate' && !plan.overallRate) lastRps = result.rps;
      const cpu = (cpuMsOf(server?.pid as number) ?? 0) - (cpuBefore ?? 0);
      const measured: Measured = {
        ...result,
        cpuMsPerReq: cpu / Math.max(1, result.total),
        cpuPercent: (cpu / (Date.now() - from)) * 100,
      };
      log(engine, `${label}: ${fmt(measured)}; server CPU ${measured.cpuMsPerReq?.toFixed(2)} ms/req`);
      return measured;
    };
    const initiatePlan = (ms: DriverMerchant[], seconds: number, rate?: number): DriverPlan => ({
      url,
      kind: 'initiate',
      connections: CONNECTIONS,
      durationSec: seconds,
      merchants: ms,
      senderPrefix: `b${randomBytes(4).toString('hex')}`,
      precompute: Math.min(200_000, Math.ceil((rate ?? lastRps * 1.5) * seconds) + 1000),
      ...(rate ? { overallRate: rate } : {}),
    });

    const warmup = warmupFor(engine);
    log(engine, `warm-up ${warmup} s`);
    lastRps = (await drive(initiatePlan(merchants, warmup))).rps;
    const loadFrom = Date.now();
    const initMany = await measure(
      `initiation over ${merchants.length} wallets, ${CONNECTIONS} connections, ${DURATION} s`,
      initiatePlan(merchants, DURATION),
    );
    const hotResult = await measure(`initiation on one hot wallet, ${DURATION} s`, initiatePlan([hot], DURATION));
    const rate = Math.max(1, Math.floor(initMany.rps / 2));
    const half = await measure(
      `initiation at half the peak (${rate} req/s), ${DURATION} s`,
      initiatePlan(merchants, DURATION, rate),
    );

    log(engine, 'collecting payouts for the status scenario');
    // The newest payouts (two admin pages: the half-load run's, spread over every merchant), each asked about
    // with its own merchant's token.
    const tokenOf = new Map([...merchants, hot].map((m) => [m.merchantId, m.token]));
    const statusTargets: { token: string; path: string }[] = [];
    let cursor = '';
    for (let page = 0; page < 2; page++) {
      const list = await call(url, 'GET', `/admin/v1/payouts?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      for (const p of list.data as { transaction_id: string; merchant_id: string }[]) {
        const token = tokenOf.get(p.merchant_id);
        if (token) statusTargets.push({ token, path: `/payout/v1/status?transaction_id=${p.transaction_id}` });
      }
      cursor = String(list.next_cursor ?? '');
      if (!cursor) break;
    }
    const statusPlan = (seconds: number): DriverPlan => ({
      url,
      kind: 'status',
      connections: CONNECTIONS,
      durationSec: seconds,
      statusTargets,
    });
    await drive(statusPlan(WARMUP));
    const status = await measure(`status by transaction_id, ${DURATION} s`, statusPlan(DURATION));
    const loadTo = Date.now();
    await sleep(2000);
    const rssAfter = rssOf(server.pid) ?? 0;
    const rssPeak = rss.peak(loadFrom, loadTo);
    rss.stop();
    log(
      engine,
      `server RSS: peak ${(rssPeak / 2 ** 20).toFixed(0)} MB under load, ${(rssAfter / 2 ** 20).toFixed(0)} MB after`,
    );
    await stopChild(server);
    log(engine, 'server stopped');

    // Baseline (b): the bare status server on the same data.
    const barePort = await freePort();
    const bareUrl = `http://127.0.0.1:${barePort}`;
    const bare = spawnTs('bench/bareStatus.ts', [String(barePort), pgUrl ?? join(dataDir, 'pgdata')], baseEnv());
    let baselineB: LoadResult;
    try {
      await waitHealthy(`${bareUrl}/healthz`, bare);
      await drive({ ...statusPlan(warmup), url: bareUrl });
      baselineB = await drive({ ...statusPlan(DURATION), url: bareUrl });
      log(engine, `baseline (b) bare node:http status: ${fmt(baselineB)}`);
    } finally {
      await stopChild(bare);
    }

    // Baseline (a): the initiation SQL on a copy of the schema (same merchants and wallets).
    const sqlPlan: SqlBaselinePlan = {
      engine,
      poolSize: SERVER_POOL_SIZE,
      concurrency: CONNECTIONS,
      warmupSec: warmup,
      durationSec: DURATION,
      merchants: merchants.map((m) => ({ merchantId: m.merchantId, walletId: m.walletId })),
      senderPrefix: `s${randomBytes(4).toString('hex')}`,
    };
    if (engine === 'postgres') {
      const root = process.env.BENCH_DATABASE_URL as string;
      const copy = `${schema}_sql`;
      await adminSql(root, `CREATE SCHEMA ${copy}`);
      cleanups.push(() => adminSql(root, `DROP SCHEMA IF EXISTS ${copy} CASCADE`));
      const db = createPgDatabase({ url: root, schema: copy });
      await migrate(db);
      await db.close();
      await adminSql(
        root,
        `INSERT INTO ${copy}.merchants SELECT * FROM ${schema}.merchants;
         INSERT INTO ${copy}.wallets SELECT * FROM ${schema}.wallets;`,
      );
      sqlPlan.url = withSearchPath(root, copy);
    } else {
      const copyDir = await mkdtemp(join(tmpdir(), 'payrail-bench-sql-'));
      cleanups.push(() => rm(copyDir, { recursive: true, force: true }));
      await cp(join(dataDir, 'pgdata'), join(copyDir, 'pgdata'), { recursive: true });
      sqlPlan.dataDir = join(copyDir, 'pgdata');
    }
    const baselineA = await runChild('bench/sqlBaseline.ts', sqlPlan);
    log(engine, `baseline (a) initiation SQL only: ${fmt(baselineA)}`);

    return {
      engine,
      initMany,
      hot: hotResult,
      half: { ...half, rate },
      status,
      baselineA,
      baselineB,
      rssPeakMb: rssPeak / 2 ** 20,
      rssAfterMb: rssAfter / 2 ** 20,
    };
  } finally {
    if (server) await stopChild(server, 'SIGKILL');
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

function table(results: EngineResults[]): string {
  const rows: string[][] = [
    ['engine', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'target', 'met', 'srv CPU ms/req'],
  ];
  const n = (v: number, d = 0) => v.toFixed(d);
  const ok = (b: boolean) => (b ? 'yes' : 'NO');
  for (const r of results) {
    const a = r.initMany.rps / r.baselineA.rps;
    const b = r.status.rps / r.baselineB.rps;
    const cpu = (m: Measured) => (m.cpuMsPerReq === undefined ? '' : n(m.cpuMsPerReq, 2));
    const fail = (m: LoadResult) => (m.failures ? ` (${m.failures} failed)` : '');
    rows.push(
      [
        r.engine,
        `initiation, ${MERCHANTS} wallets${fail(r.initMany)}`,
        n(r.initMany.rps),
        n(r.initMany.p50, 2),
        n(r.initMany.p99, 2),
        `${n(a, 2)} × (a)`,
        '≥ 0.80 × (a)',
        ok(a >= TARGETS.initiation),
        cpu(r.initMany),
      ],
      [
        r.engine,
        `initiation, one hot wallet${fail(r.hot)}`,
        n(r.hot.rps),
        n(r.hot.p50, 2),
        n(r.hot.p99, 2),
        `${n(r.hot.rps / TARGETS.hotWallet, 2)} × 400/s`,
        '≥ 400/s',
        ok(r.hot.rps >= TARGETS.hotWallet),
        cpu(r.hot),
      ],
      [
        r.engine,
        `status${fail(r.status)}`,
        n(r.status.rps),
        n(r.status.p50, 2),
        n(r.status.p99, 2),
        `${n(b, 2)} × (b)`,
        '≥ 0.60 × (b)',
        ok(b >= TARGETS.status),
        cpu(r.status),
      ],
      [
        r.engine,
        `initiation at ½ peak (${r.half.rate}/s)${fail(r.half)}`,
        n(r.half.rps),
        n(r.half.p50, 2),
        n(r.half.p99, 2),
        '',
        'p99 < 20 ms',
        ok(r.half.p99 < TARGETS.halfLoadP99),
        cpu(r.half),
      ],
      [
        r.engine,
        `(a) initiation SQL via ${r.engine === 'postgres' ? 'pg' : 'PGlite'}${fail(r.baselineA)}`,
        n(r.baselineA.rps),
        n(r.baselineA.p50, 2),
        n(r.baselineA.p99, 2),
        '',
        'baseline',
        '',
        '',
      ],
      [
        r.engine,
        `(b) bare node:http status${fail(r.baselineB)}`,
        n(r.baselineB.rps),
        n(r.baselineB.p50, 2),
        n(r.baselineB.p99, 2),
        '',
        'baseline',
        '',
        '',
      ],
      [
        r.engine,
        `server RSS MB (peak under load / after)`,
        '',
        '',
        '',
        `${n(r.rssPeakMb)} / ${n(r.rssAfterMb)}`,
        '< 250 MB',
        ok(Math.max(r.rssPeakMb, r.rssAfterMb) < TARGETS.rssMb),
        '',
      ],
    );
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length))) ?? [];
  const line = (row: string[]) =>
    `| ${row.map((cell, c) => (c >= 2 && c <= 4 ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(rows[0] as string[]), sep, ...rows.slice(1).map(line)].join('\n');
}

async function main() {
  const wanted = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',').map((s) => s.trim());
  const engines = (['pglite', 'postgres'] as Engine[]).filter(
    (e) => wanted.includes(e) && (e === 'pglite' || Boolean(process.env.BENCH_DATABASE_URL)),
  );
  const began = Date.now();
  log(
    '',
    `Payrail benchmark: ${engines.join(' + ')}, ${DURATION} s per scenario, ${CONNECTIONS} connections, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  driver = new Driver();
  const results: EngineResults[] = [];
  try {
    for (const engine of engines) results.push(await benchEngine(engine));
  } finally {
    await driver.stop();
  }
  process.stdout.write(`\n${table(results)}\n\n`);
  process.stdout.write(
    `${DURATION} s per scenario, ${CONNECTIONS} connections, autocannon in its own process; ` +
      `total ${((Date.now() - began) / 1000).toFixed(0)} s; load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
  );
}

void main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
