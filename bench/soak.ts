import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { decryptJsonObject } from '@payrail/protocol';
import {
  buildServer,
  freePort,
  IpcChild,
  rssOf,
  spawnServer,
  spawnTs,
  stopChild,
  summarize,
  waitHealthy,
  type RawRun,
} from './common.ts';
import type { DriverMerchant, DriverPlan } from './driver.ts';

/**
 * The soak benchmark (`npm run bench -- soak`, or BENCH_ONLY=soak): not a CI test. It measures the peak
 * initiation rate for a few seconds (or takes SOAK_RATE), then initiates payouts at SOAK_LOAD (default 70 %) of
 * it for SOAK_MINUTES (default 10) on an open-loop schedule, each payout with a callback URL on a local receiver,
 * so that the sandbox rail moves every payout to SUCCESS and two webhooks per payout are delivered. Every minute
 * it prints the server's RSS and V8 heap (from its /metrics) and the traffic; at the end a verdict: memory is
 * flat when the last minute's RSS and heap are within SOAK_TOLERANCE (default 15 %) of minute 2's (minute 1 is
 * warm-up: code tiering, pools and caches filling).
 *
 * Environment: SOAK_MINUTES, SOAK_RATE (req/s; skips the peak measurement), SOAK_LOAD (fraction of peak, 0.7),
 * SOAK_PEAK_SECONDS (5), SOAK_WARMUP_SECONDS (10, before the peak), SOAK_TOLERANCE (0.15), SOAK_MERCHANTS (20), SOAK_STEP_MS (sandbox step, 200),
 * BENCH_CONNECTIONS (32), SOAK_ENGINE (pglite, or postgres with BENCH_DATABASE_URL).
 */

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const LOAD = Number(process.env.SOAK_LOAD ?? 0.7);
const PEAK_SECONDS = Number(process.env.SOAK_PEAK_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? 10);
const TOLERANCE = Number(process.env.SOAK_TOLERANCE ?? 0.15);
const MERCHANTS = Number(process.env.SOAK_MERCHANTS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const STEP_MS = process.env.SOAK_STEP_MS ?? '200';
const ENGINE = process.env.SOAK_ENGINE === 'postgres' ? 'postgres' : 'pglite';
const ADMIN_TOKEN = `soak-${randomBytes(8).toString('hex')}`;

const log = (message: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} [soak] ${message}\n`);
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(PAYRAIL_|BENCH_|SOAK_)/.test(k) && !['DATABASE_URL', 'REDIS_URL'].includes(k)) env[k] = v;
  }
  return env;
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function merchant(url: string, i: number): Promise<DriverMerchant> {
  const m = await call(url, 'POST', '/admin/v1/merchants', { name: `Soak ${i}` });
  await call(url, 'POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '100000000.00' });
  const keys = { apiKey: String(m.api_key), secretKey: String(m.secret_key) };
  const res = await fetch(`${url}/v1/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(keys),
  });
  const { token } = decryptJsonObject(((await res.json()) as { data: string }).data, 'v2', keys) as { token: string };
  return { ...keys, token, walletId: String(m.wallet_id) };
}

/** The server's own view of its memory, from the Prometheus endpoint. */
async function serverMemory(url: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    heapUsed: metric('payrail_nodejs_heap_size_used_bytes'),
    heapTotal: metric('payrail_nodejs_heap_size_total_bytes'),
    external: metric('payrail_nodejs_external_memory_bytes'),
  };
}

/** A webhook receiver that answers 200 at once and counts what arrives. */
async function receiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => received,
  };
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

interface Minute {
  minute: number;
  rps: number;
  p99: number;
  failures: number;
  rss: number;
  heapUsed: number;
  webhooks: number;
}

export async function runSoak(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  const hooks = await receiver();
  cleanups.push(() => new Promise((resolve) => hooks.server.close(() => resolve())));
  try {
    let storage: Record<string, string>;
    if (ENGINE === 'postgres') {
      const root = process.env.BENCH_DATABASE_URL;
      if (!root) throw new Error('SOAK_ENGINE=postgres needs BENCH_DATABASE_URL');
      const schema = `soak_${randomBytes(4).toString('hex')}`;
      await adminSql(root, `CREATE SCHEMA ${schema}`);
      cleanups.push(() => adminSql(root, `DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      const u = new URL(root);
      u.searchParams.set('options', `-c search_path=${schema}`);
      storage = { DATABASE_URL: u.toString() };
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'payrail-soak-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      storage = { PAYRAIL_DATA_DIR: dir };
    }
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await buildServer();
    const server = spawnServer({
      ...baseEnv(),
      ...storage,
      PORT: String(port),
      HOST: '127.0.0.1',
      PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      PAYRAIL_TOKEN_TTL_SECONDS: String(Math.ceil(MINUTES * 60 + 3600)),
      PAYRAIL_SANDBOX_STEP_MS: STEP_MS,
    });
    cleanups.push(() => stopChild(server));
    await waitHealthy(`${url}/healthz`, server);
    log(`${ENGINE} server ${url}, pid ${server.pid}; creating ${MERCHANTS} merchants`);
    const merchants: DriverMerchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) merchants.push(await merchant(url, i));

    const driver = new IpcChild<{ plan: DriverPlan }, RawRun>(spawnTs('bench/driver.ts', [], baseEnv(), [], true));
    cleanups.push(() => driver.stop());
    const plan = (seconds: number, rate?: number): DriverPlan => ({
      url,
      kind: 'initiate',
      connections: CONNECTIONS,
      durationSec: seconds,
      merchants,
      senderPrefix: `k${randomBytes(4).toString('hex')}`,
      callbackUrl: hooks.url,
      precompute: Math.ceil((rate ?? 2000) * seconds) + 500,
      ...(rate ? { overallRate: rate, paced: true } : {}),
    });

    let rate = Number(process.env.SOAK_RATE ?? 0);
    if (!rate) {
      // PGlite is WebAssembly that V8 tiers up over several seconds: warm up before the peak is measured.
      await driver.request({ plan: plan(WARMUP_SECONDS) });
      const peak = summarize([await driver.request({ plan: plan(PEAK_SECONDS) })]);
      rate = Math.max(1, Math.floor(peak.rps * LOAD));
      log(
        `peak ${peak.rps.toFixed(0)} req/s over ${PEAK_SECONDS} s (p99 ${peak.p99.toFixed(1)} ms); soaking at ${rate} req/s`,
      );
      // Let the steps and webhooks of the peak burst drain before the first minute is measured.
      await new Promise((r) => setTimeout(r, 5_000));
    }
    log(`${MINUTES} min at ${rate} req/s, webhooks to ${hooks.url}, load average ${loadavg()[0]?.toFixed(1)}`);
    const minutes: Minute[] = [];
    for (let m = 1; m <= MINUTES; m++) {
      const run = summarize([await driver.request({ plan: plan(60, rate) })]);
      const memory = await serverMemory(url);
      const row: Minute = {
        minute: m,
        rps: run.rps,
        p99: run.p99,
        failures: run.failures,
        rss: rssOf(server.pid) ?? NaN,
        heapUsed: memory.heapUsed,
        webhooks: hooks.count(),
      };
      minutes.push(row);
      log(
        `minute ${m}: ${row.rps.toFixed(0)} req/s, p99 ${row.p99.toFixed(1)} ms, ${row.failures} failed; ` +
          `RSS ${mb(row.rss)} MB, heap used ${mb(row.heapUsed)} MB (total ${mb(memory.heapTotal)}, external ${mb(memory.external)}); ` +
          `webhooks received ${row.webhooks}`,
      );
    }
    const baseline = minutes[Math.min(1, minutes.length - 1)] as Minute;
    const last = minutes[minutes.length - 1] as Minute;
    const growth = (a: number, b: number) => (b - a) / a;
    const rssGrowth = growth(baseline.rss, last.rss);
    const heapGrowth = growth(baseline.heapUsed, last.heapUsed);
    const flat = rssGrowth <= TOLERANCE && heapGrowth <= TOLERANCE;
    const failures = minutes.reduce((sum, m) => sum + m.failures, 0);
    process.stdout.write(
      `\nsoak: ${ENGINE}, ${minutes.length} min at ${rate} req/s, ${failures} failed requests, ` +
        `${last.webhooks} webhooks received\n` +
        `RSS minute ${baseline.minute} ${mb(baseline.rss)} MB → minute ${last.minute} ${mb(last.rss)} MB (${(rssGrowth * 100).toFixed(1)} %); ` +
        `heap used ${mb(baseline.heapUsed)} → ${mb(last.heapUsed)} MB (${(heapGrowth * 100).toFixed(1)} %)\n` +
        `verdict: memory ${flat ? 'FLAT' : 'GREW'} (tolerance ${(TOLERANCE * 100).toFixed(0)} %)\n`,
    );
    if (!flat || failures > 0) process.exitCode = 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}
