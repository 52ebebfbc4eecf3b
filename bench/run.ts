import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { BareSeed } from './bareStatus.ts';
import { adminCall, fundedBenchMerchant, type BenchMerchant } from './benchMerchant.ts';
import { appName, freshStorage } from './benchServer.ts';
import { benchBulk, benchBulkAlone, bulkRows, type BulkBenchResult } from './bulk.ts';
import { benchDrain, drainRow, type DrainResult } from './drain.ts';
import { formatGroupSizes, groupSizes, groupSnapshot, type GroupSizes } from './groupSizes.ts';
import { benchRecon, reconRows } from './recon.ts';
import {
  buildServer,
  cpuMsOf,
  freePort,
  IpcChild,
  rssOf,
  sleep,
  spawnServer,
  spawnTs,
  stopChild,
  summarize,
  waitHealthy,
  type LoadResult,
  type RawRun,
} from './common.ts';
import type { DriverMerchant, DriverPlan } from './driver.ts';
import type { SqlBaselineConfig, SqlBaselineRequest } from './sqlBaseline.ts';
import { benchTokens, tokenTable } from './tokenBench.ts';

/**
 * `npm run bench`: the Payrail server as a child process (PGlite in a temp directory; PostgreSQL in a fresh
 * schema when BENCH_DATABASE_URL is set), driven over loopback by autocannon in another process, against two
 * baselines measured in the same run, each on its own copy of the schema:
 *   (a) the SQL statements of one initiation, straight through `pg` / PGlite (bench/sqlBaseline.ts);
 *   (b) a bare node:http server doing a status request's crypto and primary-key lookups (bench/bareStatus.ts).
 * A scenario and its baseline are measured in alternating rounds, so that a change in the machine's load during
 * the run affects both alike. Prints progress, then one table.
 *
 * Environment: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_MERCHANTS (default 100), BENCH_DATABASE_URL, BENCH_ENGINES (e.g. "postgres" to run one engine),
 * BENCH_ROUNDS (alternating rounds of a scenario and its baseline, default 2), BENCH_LOG_LEVEL (server LOG_LEVEL,
 * default warn), BENCH_SERVER_NODE_FLAGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server; they go
 * through the launcher's PAYRAIL_NODE_FLAGS), BENCH_SERVER_OUTPUT (a file that gets the spawned processes' output too, e.g. --trace-gc's),
 * BENCH_ONLY=bulk (only the bulk scenario of bench/bulk.ts), BENCH_BULK_ROUNDS (its measured rounds, default 5),
 * BENCH_ONLY=drain (only the drain of bench/drain.ts), BENCH_DRAIN=0 (the table without the drain),
 * BENCH_DRAIN_DATABASE_URL (PostgreSQL: the drain runs in this existing database, a URL with its search_path, e.g. the
 * schema BENCH_SCALE_KEEP=1 kept, instead of a fresh schema; BENCH_DATABASE_URL is still needed for the engine),
 * BENCH_ONLY=recon (only the reconciliation import of bench/recon.ts; BENCH_RECON_ENTRIES, BENCH_RECON_ROUNDS),
 * BENCH_ONLY=invoices (a month's tax invoice run of bench/invoices.ts; BENCH_INVOICE_MERCHANTS,
 * BENCH_INVOICE_TRANSACTIONS),
 * BENCH_ONLY=statement (a month's statement of one wallet, BENCH_STATEMENT_ENTRIES entries (default 120,000), streamed
 *   as CSV and JSON lines, bench/statement.ts: entries a second and the server's RSS),
 * BENCH_ONLY=scale (the console's and the merchant API's daily calls on an empty database, a small one and one of
 * BENCH_SCALE_PAYOUTS payouts over 90 days, bench/scale.ts; PostgreSQL unless BENCH_ENGINES is set: BENCH_ENGINES=pglite
 * runs it on PGlite, default 200,000 payouts there; BENCH_SCALE_BASE, BENCH_SCALE_ROUNDS, BENCH_SCALE_KEEP=1 keeps the
 * loaded schema or directory, BENCH_SCALE_DATABASE_URL measures an existing PostgreSQL database),
 * BENCH_ONLY=bankfile (cutting a pain.001 and applying a camt.054 of bench/bankfile.ts; BENCH_BANKFILE_PAYOUTS),
 * BENCH_ONLY=deposits (a camt.054 of 10,000 credits to virtual accounts applied as deposits, bench/deposits.ts;
 * BENCH_DEPOSITS, BENCH_DEPOSIT_WALLETS),
 * BENCH_ONLY=settlements (a daily settlement run of bench/settlements.ts; BENCH_SETTLEMENT_MERCHANTS,
 * BENCH_SETTLEMENT_COLLECTIONS),
 * BENCH_ONLY=camt054 (a 60 MB camt.054 through a real server's inbox, bench/camt054Inbox.ts; BENCH_CAMT054_MB,
 * BENCH_CAMT054_PAYOUTS),
 * BENCH_ONLY=upstream (the upstream connector beside the sandbox one, bench/upstream.ts; BENCH_UPSTREAM=0 leaves it out
 * of the full run; BENCH_UPSTREAM_PAYOUTS, BENCH_UPSTREAM_RATE, BENCH_UPSTREAM_BACKLOG),
 * BENCH_ONLY=token, BENCH_ONLY=soak (or `npm run bench -- soak`), BENCH_SERVER_ENV="PAYRAIL_X=… PAYRAIL_Y=…" (server
 * settings to compare, e.g. PAYRAIL_PG_PREPARED_STATEMENTS=false).
 * Each engine's run also compares initiation by 20 merchants with a three-slab pricing plan against 20 without, in
 * alternating rounds (server + PostgreSQL CPU per request; issue 30's target: at most 5 % more).
 * The server is the compiled JavaScript `npm start` runs (built first); PostgreSQL backend CPU per request is read
 * from /proc for the backends of each process (application_name), so the database must run on this machine.
 */

type Engine = 'pglite' | 'postgres';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 100);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const WARMUP = Math.max(1, Math.min(3, Math.round(DURATION / 5)));
/** PGlite is WebAssembly: V8 tiers its hot functions up over several seconds, so every process warms up longer. */
const warmupFor = (engine: Engine) => (engine === 'pglite' ? Math.max(WARMUP, Math.round(DURATION * 0.5)) : WARMUP);
const ADMIN_TOKEN = `bench-${randomBytes(8).toString('hex')}`;
/** Shared by the server and the bare status server, so that the server's tokens are good on both. */
const JWT_SECRET = randomBytes(32).toString('base64');
/** The server's PostgreSQL pool size (pgDatabase.ts); the baselines get the same. */
const SERVER_POOL_SIZE = 20;
const CREDIT = '10000000.00';
/** Issue 13's targets (figures, not tests): the ratios are to the same-run baselines (a) and (b). */
const TARGETS = { initiation: 0.8, hotWallet: 600, status: 0.8, halfLoadP99: 20, rssMb: 250 };

const log = (engine: Engine | '', message: string) =>
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${engine ? `[${engine}] ` : ''}${message}\n`);

const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms` +
  (r.failures ? `, ${r.failures} FAILED` : '') +
  (Array.isArray(r.detail?.rounds) && r.detail.rounds.length > 1
    ? ` (rounds: ${r.detail.rounds.join(', ')} req/s)`
    : '');

/** BENCH_SERVER_ENV="PAYRAIL_X=1 PAYRAIL_Y=2": server settings to compare (e.g. prepared statements off). */
function serverSettings(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVER_ENV ?? '').split(/\s+/).filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

/** Child processes get a clean environment: nothing of ours or of the caller's Payrail settings leaks in. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAYRAIL_') && !k.startsWith('BENCH_') && !['DATABASE_URL', 'REDIS_URL'].includes(k)) env[k] = v;
  }
  return env;
}

/**
 * CPU time of the PostgreSQL backends serving one process of the benchmark (found by application_name in
 * pg_stat_activity, read from /proc: the database runs on this machine). Counted per backend, so that one which
 * ends during a run (a pool's idle timeout) loses its share instead of making the sum negative.
 */
class PgBackendCpu {
  private readonly client: pg.Client;
  constructor(url: string) {
    this.client = new pg.Client({ connectionString: url });
  }
  async start(): Promise<void> {
    await this.client.connect();
  }
  /** CPU ms of each backend of that process, by pid (a backend that started since counts from zero). */
  async ms(label: string): Promise<Map<number, number>> {
    const { rows } = await this.client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [appName(label)],
    );
    return new Map(rows.map((r) => [r.pid, cpuMsOf(r.pid) ?? 0]));
  }

  async stop(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

const call = (url: string, method: string, path: string, body?: unknown) =>
  adminCall(url, ADMIN_TOKEN, method, path, body);

const createMerchant = (url: string, name: string, credit: string) =>
  fundedBenchMerchant(url, ADMIN_TOKEN, name, credit);

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
  /** Server CPU time per request, in ms (with PGlite the database runs inside the server process). */
  cpuMsPerReq?: number;
  /** PostgreSQL backend CPU time per request, in ms (PostgreSQL only). */
  pgCpuMsPerReq?: number;
  /**
   * The load generator's CPU time per request, in ms (bench/driver.ts: HTTP client and reading the answers; bodies
   * are encrypted before the run): on the same two cores as the server, so throughput is bounded by the three.
   */
  driverCpuMsPerReq?: number;
  /** How many initiations the server opened per statement (issue 34), when the scenario initiated. */
  groups?: GroupSizes | null;
}

interface EngineResults {
  engine: Engine;
  initMany: Measured;
  hot: Measured;
  half: Measured & { rate: number };
  paced: Measured;
  /** BENCH_VARIANTS: extra baseline runs, shown after the baselines. */
  variants: Record<string, Measured>;
  /** Initiation by merchants with a three-slab plan, and without, in alternating rounds (issue 30: ≤ 5 % more CPU). */
  priced: { with: Measured; without: Measured };
  status: Measured;
  baselineA: Measured;
  baselineB: Measured;
  rssPeakMb: number;
  rssAfterMb: number;
  bulk?: BulkBenchResult;
  drain?: DrainResult;
}

const BULK_ROUNDS = Math.max(1, Number(process.env.BENCH_BULK_ROUNDS ?? 5));

async function benchEngine(engine: Engine, driver: IpcChild<{ plan: DriverPlan }, RawRun>): Promise<EngineResults> {
  const cleanups: (() => Promise<void>)[] = [];
  const children: { stop(): Promise<void> }[] = [];
  const drive = async (plan: DriverPlan) => summarize([await driver.request({ plan })]);
  try {
    // The server, and the two baselines on their own copies of the schema, start side by side.
    const storage = (label: string) => freshStorage(engine, label, cleanups, process.env.BENCH_DATABASE_URL);
    const serverStorage = await storage('srv');
    const sqlStorage = await storage('sql');
    const bareStorage = await storage('bare');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let pgBackends: PgBackendCpu | undefined;
    if (engine === 'postgres') {
      pgBackends = new PgBackendCpu(process.env.BENCH_DATABASE_URL as string);
      await pgBackends.start();
      cleanups.push(() => (pgBackends as PgBackendCpu).stop());
    }
    log(engine, `starting the server on ${url} and the two baselines`);
    const flags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    await buildServer();
    const server = spawnServer(
      {
        ...baseEnv(),
        PORT: String(port),
        HOST: '127.0.0.1',
        ...(engine === 'postgres' ? { DATABASE_URL: serverStorage } : { PAYRAIL_DATA_DIR: serverStorage }),
        PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
        PAYRAIL_JWT_SECRET: JWT_SECRET,
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
        PAYRAIL_RATE_LIMIT_PER_MINUTE: '1000000000',
        PAYRAIL_TOKEN_TTL_SECONDS: '7200',
        // Payouts stay INITIATED: the worker's later steps would otherwise compete with the initiations measured.
        PAYRAIL_SANDBOX_STEP_MS: '3600000',
        ...serverSettings(),
      },
      flags,
    );
    children.push({ stop: () => stopChild(server) });
    const barePort = await freePort();
    const bareUrl = `http://127.0.0.1:${barePort}`;
    const bare = spawnTs('bench/bareStatus.ts', [String(barePort), bareStorage], {
      ...baseEnv(),
      PAYRAIL_JWT_SECRET: JWT_SECRET,
    });
    children.push({ stop: () => stopChild(bare) });
    const started = Date.now();
    await Promise.all([waitHealthy(`${url}/healthz`, server), waitHealthy(`${bareUrl}/healthz`, bare)]);
    log(engine, `server ready in ${((Date.now() - started) / 1000).toFixed(1)} s, pid ${server.pid}`);
    const rss = rssSampler(server.pid);

    log(engine, `creating ${MERCHANTS} merchants and a hot wallet`);
    const merchants: BenchMerchant[] = [];
    for (let i = 0; i < MERCHANTS; i += 10) {
      const batch = Array.from({ length: Math.min(10, MERCHANTS - i) }, (_, j) =>
        createMerchant(url, `Bench ${i + j}`, CREDIT),
      );
      merchants.push(...(await Promise.all(batch)));
    }
    const hot = await createMerchant(url, 'Bench Hot', '100000000.00');

    const sqlConfig: SqlBaselineConfig = {
      target: sqlStorage,
      poolSize: SERVER_POOL_SIZE,
      concurrency: CONNECTIONS,
      merchants: [...merchants, hot],
      creditPaise: CREDIT.replace('.', ''),
    };
    const configFile = join(tmpdir(), `payrail-bench-sql-${randomBytes(6).toString('hex')}.json`);
    await writeFile(configFile, JSON.stringify(sqlConfig));
    cleanups.push(() => rm(configFile, { force: true }));
    const sql = new IpcChild<SqlBaselineRequest, RawRun>(
      spawnTs('bench/sqlBaseline.ts', [configFile], baseEnv(), [], true),
    );
    children.push(sql);
    const sqlRun = (seconds: number, extra: Partial<SqlBaselineRequest> = {}) =>
      sql.request({ seconds, senderPrefix: `s${randomBytes(4).toString('hex')}`, ...extra });

    // Bodies are encrypted ahead of each run: enough for 1.5 × the last measured rate (the driver makes more on
    // the fly should a run outpace them).
    let lastRps = 1000;
    const initiatePlan = (ms: DriverMerchant[], seconds: number, rate?: number): DriverPlan => ({
      url,
      kind: 'initiate',
      connections: CONNECTIONS,
      durationSec: seconds,
      merchants: ms,
      senderPrefix: `b${randomBytes(4).toString('hex')}`,
      precompute: Math.min(200_000, Math.ceil((rate ?? lastRps * 1.5) * seconds) + 500),
      ...(rate ? { overallRate: rate } : {}),
    });

    /** Measures a server scenario (and, when given, its baseline in alternating rounds), with CPU per request. */
    const pgCpu = async (label: string) => (pgBackends ? await pgBackends.ms(label) : new Map<number, number>());
    /** CPU of the backends alive at the end since the start; one that ended meanwhile takes its share with it. */
    const spent = (before: Map<number, number>, after: Map<number, number>) =>
      [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);
    const measure = async (
      label: string,
      plan: (seconds: number) => DriverPlan,
      baseline?: { run: (seconds: number) => Promise<RawRun>; pid: number; storage: string },
    ) => {
      const runs: RawRun[] = [];
      const baseRuns: RawRun[] = [];
      let cpu = 0;
      let baseCpu = 0;
      let dbCpu = 0;
      let baseDbCpu = 0;
      let driverCpu = 0;
      const rounds = baseline ? ROUNDS : 1;
      const groupsBefore = await groupSnapshot(url);
      for (let round = 0; round < rounds; round++) {
        const before = cpuMsOf(server.pid) ?? 0;
        const dbBefore = await pgCpu('srv');
        const driverBefore = cpuMsOf(driver.child.pid) ?? 0;
        runs.push(await driver.request({ plan: plan(DURATION / rounds) }));
        driverCpu += (cpuMsOf(driver.child.pid) ?? 0) - driverBefore;
        cpu += (cpuMsOf(server.pid) ?? 0) - before;
        dbCpu += spent(dbBefore, await pgCpu('srv'));
        if (baseline) {
          const baseBefore = cpuMsOf(baseline.pid) ?? 0;
          const baseDbBefore = await pgCpu(baseline.storage);
          baseRuns.push(await baseline.run(DURATION / rounds));
          baseCpu += (cpuMsOf(baseline.pid) ?? 0) - baseBefore;
          baseDbCpu += spent(baseDbBefore, await pgCpu(baseline.storage));
        }
      }
      const result: Measured = { ...summarize(runs) };
      result.cpuMsPerReq = cpu / Math.max(1, result.total);
      if (pgBackends) result.pgCpuMsPerReq = dbCpu / Math.max(1, result.total);
      result.driverCpuMsPerReq = driverCpu / Math.max(1, result.total);
      result.groups = groupSizes(groupsBefore, await groupSnapshot(url));
      log(
        engine,
        `${label}: ${fmt(result)}; server CPU ${result.cpuMsPerReq.toFixed(2)} ms/req` +
          (pgBackends ? `, PostgreSQL CPU ${result.pgCpuMsPerReq?.toFixed(2)} ms/req` : '') +
          `, load generator CPU ${result.driverCpuMsPerReq.toFixed(2)} ms/req` +
          (result.groups ? `; ${formatGroupSizes(result.groups)}` : ''),
      );
      const base: Measured | undefined = baseline ? { ...summarize(baseRuns) } : undefined;
      if (base) base.cpuMsPerReq = baseCpu / Math.max(1, base.total);
      if (base && pgBackends) base.pgCpuMsPerReq = baseDbCpu / Math.max(1, base.total);
      return { result, base };
    };

    const warmup = warmupFor(engine);
    log(engine, `warm-up ${warmup} s (server and SQL baseline)`);
    lastRps = (await drive(initiatePlan(merchants, warmup))).rps;
    await sqlRun(warmup);
    const loadFrom = Date.now();

    const many = await measure(
      `initiation over ${merchants.length} wallets, ${CONNECTIONS} connections, ${DURATION} s (with baseline a)`,
      (seconds) => initiatePlan(merchants, seconds),
      { run: (seconds) => sqlRun(seconds), pid: sql.child.pid, storage: 'sql' },
    );
    const baselineA = many.base as Measured;
    log(
      engine,
      `baseline (a) initiation SQL only: ${fmt(baselineA)}; its CPU ${baselineA.cpuMsPerReq?.toFixed(2)} ms/req`,
    );
    lastRps = many.result.rps;
    const hotRun = await measure(`initiation on one hot wallet, ${DURATION} s`, (s) => initiatePlan([hot], s));
    const variants: Record<string, Measured> = {};
    if (process.env.BENCH_VARIANTS) {
      // Evidence for the hot wallet: the server's SQL alone on one wallet, and the same writes as one statement.
      const hotIndex = merchants.length;
      for (const variant of ['statements', 'single'] as const) {
        const raw = await sqlRun(DURATION, { hotIndex, variant });
        const r: Measured = { ...summarize([raw]), cpuMsPerReq: (raw.cpuMs ?? 0) / Math.max(1, raw.latencies.length) };
        variants[`(a) hot wallet, SQL ${variant === 'single' ? 'as one statement' : 'statements'}`] = r;
        log(engine, `baseline (a) on one hot wallet, ${variant}: ${fmt(r)}`);
      }
      const raw = await sqlRun(DURATION, { variant: 'single' });
      const r: Measured = { ...summarize([raw]), cpuMsPerReq: (raw.cpuMs ?? 0) / Math.max(1, raw.latencies.length) };
      variants['(a) 100 wallets, SQL as one statement'] = r;
      log(engine, `baseline (a) over ${merchants.length} wallets, single statement: ${fmt(r)}`);
    }
    // Commercials: the same initiation by merchants with a three-slab plan, alternating with merchants without one,
    // so that a change of the machine's load falls on both; CPU per request of the server and of PostgreSQL.
    log(engine, `setting a three-slab plan on ${Math.min(20, merchants.length)} more merchants`);
    const plain = merchants.slice(0, Math.min(20, merchants.length));
    const priced: BenchMerchant[] = [];
    for (let i = 0; i < plain.length; i++) {
      const m = await createMerchant(url, `Bench priced ${i}`, CREDIT);
      // adminCall throws on a refusal.
      await call(url, 'PUT', `/admin/v1/merchants/${m.merchantId}/pricing`, {
        name: 'Three slabs',
        rules: {
          IMPS: { slabs: [{ up_to: '1000.00', flat: '2.00' }, { up_to: '25000.00', flat: '5.00' }, { flat: '10.00' }] },
        },
      });
      priced.push(m);
    }
    const pricedRounds = { with: [] as Measured[], without: [] as Measured[] };
    for (let round = 0; round < ROUNDS; round++) {
      pricedRounds.without.push(
        (await measure(`initiation without a plan, round ${round + 1}`, (s) => initiatePlan(plain, s / ROUNDS))).result,
      );
      pricedRounds.with.push(
        (
          await measure(`initiation with a three-slab plan, round ${round + 1}`, (s) =>
            initiatePlan(priced, s / ROUNDS),
          )
        ).result,
      );
    }
    const pooled = (runs: Measured[]): Measured => {
      const total = runs.reduce((sum, r) => sum + r.total, 0);
      const per = (f: (r: Measured) => number | undefined) =>
        runs.reduce((sum, r) => sum + (f(r) ?? 0) * r.total, 0) / Math.max(1, total);
      return {
        ...(runs[runs.length - 1] as Measured),
        total,
        rps: runs.reduce((sum, r) => sum + r.rps, 0) / runs.length,
        cpuMsPerReq: per((r) => r.cpuMsPerReq),
        ...(pgBackends ? { pgCpuMsPerReq: per((r) => r.pgCpuMsPerReq) } : {}),
      };
    };
    const pricedResult = { with: pooled(pricedRounds.with), without: pooled(pricedRounds.without) };
    const cpuOf = (m: Measured) => (m.cpuMsPerReq ?? 0) + (m.pgCpuMsPerReq ?? 0);
    log(
      engine,
      `initiation CPU per request, server + PostgreSQL: with a plan ${cpuOf(pricedResult.with).toFixed(3)} ms, ` +
        `without ${cpuOf(pricedResult.without).toFixed(3)} ms (${((cpuOf(pricedResult.with) / cpuOf(pricedResult.without) - 1) * 100).toFixed(1)} %)`,
    );
    const rate = Math.max(1, Math.floor(many.result.rps / 2));
    const half = await measure(
      `initiation at half the peak (${rate} req/s, autocannon overallRate), ${DURATION} s`,
      (s) => initiatePlan(merchants, s, rate),
    );
    const paced = await measure(`initiation at half the peak (${rate} req/s, paced open loop), ${DURATION} s`, (s) => ({
      ...initiatePlan(merchants, s, rate),
      paced: true,
    }));

    // The newest payouts (two admin pages, spread over every merchant), each asked about with its merchant's
    // token, on the server and on the bare server (which gets copies of those rows).
    log(engine, 'collecting payouts for the status scenario');
    const byId = new Map([...merchants, hot].map((m) => [m.merchantId, m]));
    const picked: { transaction_id: string; merchant_id: string; wallet_id: string; sender_id: string }[] = [];
    let cursor = '';
    for (let page = 0; page < 2; page++) {
      const list = await call(url, 'GET', `/admin/v1/payouts?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      picked.push(...(list.data as typeof picked));
      cursor = String(list.next_cursor ?? '');
      if (!cursor) break;
    }
    const statusTargets = picked.map((p) => ({
      token: (byId.get(p.merchant_id) as BenchMerchant).token,
      path: `/payout/v1/status?transaction_id=${p.transaction_id}`,
    }));
    const seed: BareSeed = {
      merchants: [...byId.values()],
      payouts: picked.map((p) => ({
        transactionId: p.transaction_id,
        merchantId: p.merchant_id,
        walletId: p.wallet_id,
        senderId: p.sender_id,
      })),
    };
    const seeded = await fetch(`${bareUrl}/_seed`, { method: 'POST', body: JSON.stringify(seed) });
    if (seeded.status !== 200) throw new Error(`seeding the bare server failed: ${await seeded.text()}`);
    const statusPlan =
      (target: string) =>
      (seconds: number): DriverPlan => ({
        url: target,
        kind: 'status',
        connections: CONNECTIONS,
        durationSec: seconds,
        statusTargets,
      });
    await drive(statusPlan(url)(WARMUP));
    await drive(statusPlan(bareUrl)(warmup));
    const status = await measure(`status by transaction_id, ${DURATION} s (with baseline b)`, statusPlan(url), {
      run: (s) => driver.request({ plan: statusPlan(bareUrl)(s) }),
      pid: bare.pid,
      storage: 'bare',
    });
    const baselineB = status.base as Measured;
    log(
      engine,
      `baseline (b) bare node:http status: ${fmt(baselineB)}; its CPU ${baselineB.cpuMsPerReq?.toFixed(2)} ms/req`,
    );
    const loadTo = Date.now();
    const bulk = await benchBulk({
      url,
      adminToken: ADMIN_TOKEN,
      connections: CONNECTIONS,
      rounds: BULK_ROUNDS,
      log: (m) => log(engine, m),
    });

    await sleep(2000);
    const rssAfter = rssOf(server.pid) ?? 0;
    const rssPeak = rss.peak(loadFrom, loadTo);
    rss.stop();
    log(
      engine,
      `server RSS: peak ${(rssPeak / 2 ** 20).toFixed(0)} MB under load, ${(rssAfter / 2 ** 20).toFixed(0)} MB after`,
    );
    return {
      engine,
      initMany: many.result,
      hot: hotRun.result,
      half: { ...half.result, rate },
      paced: paced.result,
      variants,
      priced: pricedResult,
      status: status.result,
      baselineA,
      baselineB,
      rssPeakMb: rssPeak / 2 ** 20,
      rssAfterMb: rssAfter / 2 ** 20,
      bulk,
    };
  } finally {
    for (const child of children.reverse()) await child.stop().catch(() => undefined);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

function table(results: EngineResults[]): string {
  const rows: string[][] = [
    ['engine', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'target', 'met', 'CPU ms/req', 'PG CPU ms/req'],
  ];
  const n = (v: number, d = 0) => v.toFixed(d);
  const ok = (b: boolean) => (b ? 'yes' : 'NO');
  for (const r of results) {
    const a = r.initMany.rps / r.baselineA.rps;
    const b = r.status.rps / r.baselineB.rps;
    const cpu = (m: Measured) => (m.cpuMsPerReq === undefined ? '' : n(m.cpuMsPerReq, 2));
    const pgc = (m: Measured) => (m.pgCpuMsPerReq === undefined ? '' : n(m.pgCpuMsPerReq, 2));
    const fail = (m: LoadResult) => (m.failures ? ` (${m.failures} failed)` : '');
    rows.push(
      [
        r.engine,
        `initiation, ${MERCHANTS} wallets${fail(r.initMany)}`,
        n(r.initMany.rps),
        n(r.initMany.p50, 2),
        n(r.initMany.p99, 2),
        `${n(a, 2)} × (a)`,
        `≥ ${n(TARGETS.initiation, 2)} × (a)`,
        ok(a >= TARGETS.initiation),
        cpu(r.initMany),
        pgc(r.initMany),
      ],
      [
        r.engine,
        `initiation, one hot wallet${fail(r.hot)}`,
        n(r.hot.rps),
        n(r.hot.p50, 2),
        n(r.hot.p99, 2),
        `${n(r.hot.rps / TARGETS.hotWallet, 2)} × ${TARGETS.hotWallet}/s`,
        `≥ ${TARGETS.hotWallet}/s`,
        ok(r.hot.rps >= TARGETS.hotWallet),
        cpu(r.hot),
        pgc(r.hot),
      ],
      [
        r.engine,
        `status${fail(r.status)}`,
        n(r.status.rps),
        n(r.status.p50, 2),
        n(r.status.p99, 2),
        `${n(b, 2)} × (b)`,
        `≥ ${n(TARGETS.status, 2)} × (b)`,
        ok(b >= TARGETS.status),
        cpu(r.status),
        pgc(r.status),
      ],
      [
        r.engine,
        `initiation at ½ peak (${r.half.rate}/s), autocannon${fail(r.half)}`,
        n(r.half.rps),
        n(r.half.p50, 2),
        n(r.half.p99, 2),
        '',
        'p99 < 20 ms',
        ok(r.half.p99 < TARGETS.halfLoadP99),
        cpu(r.half),
        pgc(r.half),
      ],
      [
        r.engine,
        `initiation at ½ peak (${r.half.rate}/s), paced${fail(r.paced)}`,
        n(r.paced.rps),
        n(r.paced.p50, 2),
        n(r.paced.p99, 2),
        '',
        'p99 < 20 ms',
        ok(r.paced.p99 < TARGETS.halfLoadP99),
        cpu(r.paced),
        pgc(r.paced),
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
        // With PGlite the database runs inside the baseline's process: its CPU per initiation is the database's.
        r.engine === 'pglite' ? cpu(r.baselineA) : '',
        pgc(r.baselineA),
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
        cpu(r.baselineB),
        pgc(r.baselineB),
      ],
      ...(r.bulk ? bulkRows(r.engine, r.bulk).map((row) => [...row, '']) : []),
      ...(r.drain ? [[...drainRow(r.engine, r.drain), '']] : []),
      ...(() => {
        const total = (m: Measured) => (m.cpuMsPerReq ?? 0) + (m.pgCpuMsPerReq ?? 0);
        const ratio = total(r.priced.with) / Math.max(1e-9, total(r.priced.without));
        return [
          [
            r.engine,
            'initiation, 20 wallets, no plan (alternating)',
            n(r.priced.without.rps),
            n(r.priced.without.p50, 2),
            n(r.priced.without.p99, 2),
            '',
            'baseline',
            '',
            cpu(r.priced.without),
            pgc(r.priced.without),
          ],
          [
            r.engine,
            'initiation, 20 wallets, three-slab plan',
            n(r.priced.with.rps),
            n(r.priced.with.p50, 2),
            n(r.priced.with.p99, 2),
            `${n(ratio, 3)} × CPU`,
            '≤ 1.05 × no plan',
            ok(ratio <= 1.05),
            cpu(r.priced.with),
            pgc(r.priced.with),
          ],
        ];
      })(),
      ...Object.entries(r.variants).map(([label, v]) => [
        r.engine,
        label,
        n(v.rps),
        n(v.p50, 2),
        n(v.p99, 2),
        '',
        'experiment',
        '',
        r.engine === 'pglite' ? cpu(v) : '',
        pgc(v),
      ]),
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
        '',
      ],
    );
  }
  // Issue 34: how many initiations one statement opened in each initiation scenario (histogram bucket bounds).
  for (const r of results) {
    const scenarios: [string, Measured][] = [
      [`${MERCHANTS} wallets`, r.initMany],
      ['one hot wallet', r.hot],
      ['½ peak, paced', r.paced],
    ];
    for (const [label, m] of scenarios) {
      if (!m.groups) continue;
      const g = m.groups;
      rows.push([
        r.engine,
        `group size, ${label}`,
        '',
        '',
        '',
        `≤ ${g.median} / ≤ ${g.p99}`,
        'median / p99',
        '',
        '',
        '',
      ]);
    }
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length))) ?? [];
  const line = (row: string[]) =>
    `| ${row.map((cell, c) => (c >= 2 && c <= 4 ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(rows[0] as string[]), sep, ...rows.slice(1).map(line)].join('\n');
}

/** The drain scenario (bench/drain.ts) on a server of its own. */
const drainOn = (engine: Engine) =>
  benchDrain(engine, {
    adminToken: ADMIN_TOKEN,
    log: (m) => log(engine, m),
    databaseUrl: process.env.BENCH_DATABASE_URL,
    env: baseEnv(),
  });

/** The upstream scenario (bench/upstream.ts) on each engine, as one table. */
async function upstreamOn(engines: Engine[]): Promise<string> {
  const { benchUpstream, upstreamTable } = await import('./upstream.ts');
  const results = [];
  for (const engine of engines) {
    results.push(
      await benchUpstream(engine, {
        adminToken: ADMIN_TOKEN,
        databaseUrl: process.env.BENCH_DATABASE_URL,
        env: baseEnv(),
        durationSec: DURATION,
        connections: CONNECTIONS,
        rounds: ROUNDS,
        log: (m) => log(engine, m),
      }),
    );
  }
  return upstreamTable(results);
}

async function main() {
  // `npm run bench -- soak` or BENCH_ONLY=soak: the long memory run instead of the throughput table.
  if (process.argv[2] === 'soak' || process.env.BENCH_ONLY === 'soak') {
    await (await import('./soak.ts')).runSoak();
    return;
  }
  // BENCH_ONLY=token: only the V1 token lookup with 10,000 merchants (bench/tokenBench.ts).
  if (process.env.BENCH_ONLY === 'token') {
    process.stdout.write(`\n${tokenTable(await benchTokens((m) => log('', m), baseEnv()))}\n`);
    return;
  }
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
  if (process.env.BENCH_ONLY === 'drain') {
    const rows = [['engine', 'scenario', 'payouts/s', '', '', 'time', 'target', 'met', '']];
    for (const engine of engines) {
      const r = await drainOn(engine);
      rows.push(drainRow(engine, r));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  // BENCH_ONLY=bankfile: a pain.001 of 10,000 payouts cut, a camt.054 of 10,000 entries applied (bench/bankfile.ts).
  if (process.env.BENCH_ONLY === 'bankfile') {
    const { benchBankFile, bankFileRows } = await import('./bankfile.ts');
    const rows = [['engine', 'scenario', 'ms', 'file', 'peak RSS']];
    for (const engine of engines) {
      const result = await benchBankFile(engine, {
        databaseUrl: process.env.BENCH_DATABASE_URL,
        log: (m) => log(engine, m),
      });
      rows.push(...bankFileRows(engine, result));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  // BENCH_ONLY=deposits: a camt.054 of 10,000 credits to virtual accounts applied as deposits (bench/deposits.ts).
  if (process.env.BENCH_ONLY === 'deposits') {
    const { benchDeposits, depositRows } = await import('./deposits.ts');
    const rows = [['engine', 'scenario', 'ms', 'CPU ms (node + PG)', 'file', 'target', 'met']];
    for (const engine of engines) {
      const result = await benchDeposits(engine, {
        databaseUrl: process.env.BENCH_DATABASE_URL,
        log: (m) => log(engine, m),
      });
      rows.push(...depositRows(engine, result));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  // BENCH_ONLY=settlements: a daily settlement run of 10,000 merchants and 100,000 collections (bench/settlements.ts).
  if (process.env.BENCH_ONLY === 'settlements') {
    const { benchSettlements, settlementRows } = await import('./settlements.ts');
    const rows = [['engine', 'scenario', 'ms', 'settled', 'target', 'met']];
    for (const engine of engines) {
      const result = await benchSettlements(engine, {
        databaseUrl: process.env.BENCH_DATABASE_URL,
        log: (m) => log(engine, m),
      });
      rows.push(...settlementRows(engine, result));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  // BENCH_ONLY=camt054: a 60 MB camt.054 applied through a real server's inbox (bench/camt054Inbox.ts).
  if (process.env.BENCH_ONLY === 'camt054') {
    const { benchCamt054, camt054Row } = await import('./camt054Inbox.ts');
    const rows = [['engine', 'scenario', 's', 'server RSS before → peak', 'target', 'met']];
    for (const engine of engines) {
      const result = await benchCamt054(engine, {
        databaseUrl: process.env.BENCH_DATABASE_URL,
        env: baseEnv(),
        adminToken: ADMIN_TOKEN,
        log: (m) => log(engine, m),
      });
      rows.push(camt054Row(engine, result));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  // BENCH_ONLY=upstream: the upstream connector beside the sandbox connector (bench/upstream.ts).
  if (process.env.BENCH_ONLY === 'upstream') {
    process.stdout.write(`\n${await upstreamOn(engines)}\n`);
    return;
  }
  // BENCH_ONLY=statement: a month's statement of a busy wallet, streamed as CSV and JSON lines (bench/statement.ts).
  if (process.env.BENCH_ONLY === 'statement') {
    const { benchStatement, STATEMENT_HEADER, statementRows } = await import('./statement.ts');
    const rows = [STATEMENT_HEADER];
    for (const engine of engines) {
      const runs = await benchStatement(engine, {
        env: baseEnv(),
        databaseUrl: process.env.BENCH_DATABASE_URL,
        log: (m) => log(engine, m),
      });
      rows.push(...statementRows(engine, runs));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  // BENCH_ONLY=invoices: a month's tax invoice run over 1,000 merchants and 1,000,000 transactions (bench/invoices.ts).
  if (process.env.BENCH_ONLY === 'invoices') {
    const { benchInvoices, invoiceRows } = await import('./invoices.ts');
    const rows = [['engine', 'scenario', 's', 'target', 'met', '']];
    for (const engine of engines) {
      const result = await benchInvoices(engine, {
        env: baseEnv(),
        databaseUrl: process.env.BENCH_DATABASE_URL,
        log: (m) => log(engine, m),
      });
      rows.push(...invoiceRows(engine, result));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  // BENCH_ONLY=scale: the operators' daily calls, empty vs BENCH_SCALE_PAYOUTS payouts (bench/scale.ts, issue 35).
  if (process.env.BENCH_ONLY === 'scale') {
    const { benchScale, scaleTable } = await import('./scale.ts');
    // PostgreSQL alone unless BENCH_ENGINES names the engines: the documented PostgreSQL command stays one engine.
    for (const engine of process.env.BENCH_ENGINES ? engines : (['postgres'] as Engine[])) {
      const result = await benchScale(engine, {
        env: baseEnv(),
        databaseUrl: process.env.BENCH_DATABASE_URL,
        log: (m) => log(engine, m),
      });
      process.stdout.write(`\n${scaleTable(result)}\n`);
    }
    return;
  }
  // BENCH_ONLY=recon: importing and matching a camt.053 of 10,000 entries (bench/recon.ts).
  if (process.env.BENCH_ONLY === 'recon') {
    const rows = [['engine', 'scenario', 'median ms', 'worst ms', 'target', 'met', '']];
    for (const engine of engines) {
      const result = await benchRecon(engine, {
        env: baseEnv(),
        databaseUrl: process.env.BENCH_DATABASE_URL,
        log: (m) => log(engine, m),
      });
      rows.push(...reconRows(engine, result));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  if (process.env.BENCH_ONLY === 'bulk') {
    const rows = [['engine', 'scenario', 'items/s', 'median ms', 'worst ms', 'ratio', 'target', 'met', '']];
    for (const engine of engines) {
      const result = await benchBulkAlone(engine, {
        adminToken: ADMIN_TOKEN,
        connections: CONNECTIONS,
        rounds: BULK_ROUNDS,
        log: (m) => log(engine, m),
        databaseUrl: process.env.BENCH_DATABASE_URL,
        env: baseEnv(),
      });
      rows.push(...bulkRows(engine, result));
    }
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    return;
  }
  const driver = new IpcChild<{ plan: DriverPlan }, RawRun>(spawnTs('bench/driver.ts', [], baseEnv(), [], true));
  const results: EngineResults[] = [];
  try {
    for (const engine of engines) {
      const result = await benchEngine(engine, driver);
      if (process.env.BENCH_DRAIN !== '0') {
        result.drain = await drainOn(engine);
        log(
          engine,
          `drain: ${drainRow(engine, result.drain).slice(1, 2).join('')} in ${result.drain.seconds.toFixed(1)} s`,
        );
      }
      results.push(result);
    }
  } finally {
    await driver.stop();
  }
  process.stdout.write(`\n${table(results)}\n\n`);
  process.stdout.write(`${tokenTable(await benchTokens((m) => log('', m), baseEnv()))}\n\n`);
  if (process.env.BENCH_UPSTREAM !== '0') process.stdout.write(`${await upstreamOn(engines)}\n\n`);
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
