import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encryptJson } from '@payrail/protocol';
import { adminCall, fundedBenchMerchant, type BenchMerchant } from './benchMerchant.ts';
import { startBenchServer, type BenchServer } from './benchServer.ts';
import {
  benchPayout,
  IpcChild,
  percentile,
  sleep,
  spawnTs,
  summarize,
  type LoadResult,
  type RawRun,
} from './common.ts';
import type { DriverPlan } from './driver.ts';

/**
 * BENCH_ONLY=upstream (and part of the full run): the upstream connector (docs/operator/connectors.md) against the sandbox
 * connector, side by side on the same engine. Three servers: an upstream Payrail in sandbox mode (sandbox step
 * 50 ms), a downstream Payrail whose payouts go to it (PAYRAIL_CONNECTOR=upstream, webhooks on), and the same
 * downstream with the sandbox connector (step 50 ms). Measured on each downstream:
 *  - initiation throughput (autocannon in its own process, BENCH_CONNECTIONS connections, rounds alternating
 *    between the two downstreams so that a change of the machine's load affects both alike);
 *  - the time from initiation to SUCCESS of BENCH_UPSTREAM_PAYOUTS payouts (default 200) sent at
 *    BENCH_UPSTREAM_RATE per second (default 20): from just before the request until the merchant's
 *    `payout.success` webhook arrives (p50 / p99);
 *  - a backlog: BENCH_UPSTREAM_BACKLOG payouts (default 1,000) initiated as fast as 32 connections go, timed from
 *    the first request until every one's `payout.success` webhook has arrived.
 */

const PAYOUTS = Number(process.env.BENCH_UPSTREAM_PAYOUTS ?? 200);
const RATE = Number(process.env.BENCH_UPSTREAM_RATE ?? 20);
const BACKLOG = Number(process.env.BENCH_UPSTREAM_BACKLOG ?? 1000);
const MERCHANTS = 20;
const STEP_MS = 50;
const BACKLOG_CONNECTIONS = 32;
const SETTLE_LIMIT_MS = 300_000;

export interface UpstreamSide {
  connector: 'upstream' | 'sandbox';
  initiation: LoadResult;
  /** Initiation → the merchant's payout.success webhook, ms. */
  toSuccess: { p50: number; p99: number; max: number; count: number };
  backlog: { payouts: number; submittedSeconds: number; seconds: number };
}

export interface UpstreamBenchResult {
  engine: 'pglite' | 'postgres';
  sides: UpstreamSide[];
}

/** Counts `payout.success` events by the path of their callback URL (`/<run>/<n>`), with the time of arrival. */
async function successReceiver() {
  const arrived = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string };
        if (event.type === 'payout.success' && !arrived.has(req.url ?? '')) arrived.set(req.url ?? '', at);
      } catch {
        // Not an event: ignored.
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, arrived, close: () => new Promise((resolve) => server.close(resolve)) };
}

type Receiver = Awaited<ReturnType<typeof successReceiver>>;

async function initiate(url: string, m: BenchMerchant, senderId: string, callbackUrl: string): Promise<void> {
  const body = { payload: encryptJson(benchPayout(m.walletId, senderId, callbackUrl), 'v2', m) };
  const res = await fetch(`${url}/payout/v1/initiate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { resp_code?: number };
  if (answer.resp_code !== 2000) throw new Error(`initiation answered ${JSON.stringify(answer)}`);
}

/** Waits until every key has arrived; throws after SETTLE_LIMIT_MS. */
async function settled(receiver: Receiver, keys: string[], log: (m: string) => void, what: string): Promise<void> {
  const started = performance.now();
  let lastLog = started;
  for (;;) {
    const done = keys.filter((k) => receiver.arrived.has(k)).length;
    if (done === keys.length) return;
    if (performance.now() - started > SETTLE_LIMIT_MS) throw new Error(`${what}: only ${done} of ${keys.length}`);
    if (performance.now() - lastLog > 5000) {
      log(`${what}: ${done} of ${keys.length} at SUCCESS`);
      lastLog = performance.now();
    }
    await sleep(20);
  }
}

/** Payouts at a fixed rate; each one's time from just before its request until its success webhook. */
async function timeToSuccess(
  url: string,
  merchants: BenchMerchant[],
  receiver: Receiver,
  log: (m: string) => void,
  label: string,
): Promise<UpstreamSide['toSuccess']> {
  const run = randomBytes(4).toString('hex');
  const sentAt = new Map<string, number>();
  const requests: Promise<void>[] = [];
  const began = performance.now();
  for (let i = 0; i < PAYOUTS; i++) {
    const due = began + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const key = `/${run}/${i}`;
    sentAt.set(key, performance.now());
    requests.push(initiate(url, merchants[i % merchants.length] as BenchMerchant, `ut${run}-${i}`, receiver.url + key));
  }
  await Promise.all(requests);
  await settled(receiver, [...sentAt.keys()], log, `${label} time to SUCCESS`);
  const times = [...sentAt].map(([k, t]) => (receiver.arrived.get(k) as number) - t).sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1) ?? 0, count: times.length };
}

/** BACKLOG payouts as fast as they are answered, until all are at SUCCESS (their webhooks arrived). */
async function backlog(
  url: string,
  merchants: BenchMerchant[],
  receiver: Receiver,
  log: (m: string) => void,
  label: string,
): Promise<UpstreamSide['backlog']> {
  const run = randomBytes(4).toString('hex');
  const keys = Array.from({ length: BACKLOG }, (_, i) => `/${run}/${i}`);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: BACKLOG_CONNECTIONS }, async () => {
      while (next < BACKLOG) {
        const i = next++;
        await initiate(url, merchants[i % merchants.length] as BenchMerchant, `bl${run}-${i}`, receiver.url + keys[i]);
      }
    }),
  );
  const submittedSeconds = (performance.now() - started) / 1000;
  await settled(receiver, keys, log, `${label} backlog`);
  return { payouts: BACKLOG, submittedSeconds, seconds: (performance.now() - started) / 1000 };
}

export async function benchUpstream(
  engine: 'pglite' | 'postgres',
  o: {
    databaseUrl?: string;
    env: NodeJS.ProcessEnv;
    adminToken: string;
    durationSec: number;
    connections: number;
    rounds: number;
    log: (m: string) => void;
  },
): Promise<UpstreamBenchResult> {
  const servers: BenchServer[] = [];
  const receiver = await successReceiver();
  const driver = new IpcChild<{ plan: DriverPlan }, RawRun>(spawnTs('bench/driver.ts', [], o.env, [], true));
  try {
    const start = (settings: Record<string, string>) =>
      startBenchServer(engine, { databaseUrl: o.databaseUrl, env: o.env, adminToken: o.adminToken, settings }).then(
        (s) => {
          servers.push(s);
          return s;
        },
      );
    const webhooks = { PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'true', PAYRAIL_SANDBOX_STEP_MS: String(STEP_MS) };
    o.log('upstream: starting the upstream (sandbox) and its treasury account');
    const up = await start(webhooks);
    const account = await adminCall(up.url, o.adminToken, 'POST', '/admin/v1/merchants', { name: 'Payrail treasury' });
    await adminCall(up.url, o.adminToken, 'POST', `/admin/v1/wallets/${String(account.wallet_id)}/credits`, {
      amount: '1000000000.00',
    });
    o.log('upstream: starting the two downstreams (upstream connector, sandbox connector)');
    // One after the other: on a loaded machine, PGlite servers starting side by side each take much longer.
    const viaUpstream = await start({
      ...webhooks,
      PAYRAIL_CONNECTOR: 'upstream',
      PAYRAIL_UPSTREAM_URL: up.url,
      PAYRAIL_UPSTREAM_API_KEY: String(account.api_key),
      PAYRAIL_UPSTREAM_SECRET_KEY: String(account.secret_key),
      PAYRAIL_UPSTREAM_WALLET_ID: String(account.wallet_id),
      PAYRAIL_UPSTREAM_WEBHOOK_SECRET: String(account.webhook_secret),
    });
    const viaSandbox = await start(webhooks);
    const sides = [
      { connector: 'upstream' as const, server: viaUpstream as BenchServer },
      { connector: 'sandbox' as const, server: viaSandbox as BenchServer },
    ];
    const merchantsOf = new Map<string, BenchMerchant[]>();
    for (const { connector, server } of sides) {
      const ms: BenchMerchant[] = [];
      for (let i = 0; i < MERCHANTS; i++) {
        ms.push(await fundedBenchMerchant(server.url, o.adminToken, `Upstream bench ${i}`, '10000000.00'));
      }
      merchantsOf.set(connector, ms);
    }

    // Initiation throughput, rounds alternating between the two downstreams (a warm-up round first on each).
    const runs = new Map<string, RawRun[]>([
      ['upstream', []],
      ['sandbox', []],
    ]);
    const plan = (url: string, connector: string, seconds: number): DriverPlan => ({
      url,
      kind: 'initiate',
      connections: o.connections,
      durationSec: seconds,
      merchants: merchantsOf.get(connector),
      senderPrefix: `u${randomBytes(4).toString('hex')}`,
      precompute: Math.ceil(3000 * seconds) + 500,
    });
    for (const { connector, server } of sides) {
      await driver.request({ plan: plan(server.url, connector, Math.max(1, Math.round(o.durationSec / 5))) });
    }
    for (let round = 0; round < o.rounds; round++) {
      for (const { connector, server } of round % 2 === 0 ? sides : [...sides].reverse()) {
        const raw = await driver.request({ plan: plan(server.url, connector, o.durationSec / o.rounds) });
        runs.get(connector)?.push(raw);
        o.log(
          `upstream: initiation via ${connector}, round ${round + 1}: ${(raw.latencies.length / raw.seconds).toFixed(0)} req/s`,
        );
      }
    }
    // The payouts of the throughput runs settle before the latency is measured (they would compete with it).
    for (const { connector, server } of sides) {
      await drainedOf(server.url, o.adminToken, o.log, connector);
    }

    const results: UpstreamSide[] = [];
    for (const { connector, server } of sides) {
      const ms = merchantsOf.get(connector) as BenchMerchant[];
      o.log(`upstream: ${PAYOUTS} payouts via ${connector} at ${RATE}/s, initiation to SUCCESS`);
      const toSuccess = await timeToSuccess(server.url, ms, receiver, o.log, connector);
      o.log(`upstream: backlog of ${BACKLOG} via ${connector}`);
      const b = await backlog(server.url, ms, receiver, o.log, connector);
      results.push({ connector, initiation: summarize(runs.get(connector) ?? []), toSuccess, backlog: b });
      o.log(
        `upstream: via ${connector}: to SUCCESS p50 ${toSuccess.p50.toFixed(0)} ms, p99 ${toSuccess.p99.toFixed(0)} ms; ` +
          `backlog ${b.seconds.toFixed(1)} s`,
      );
    }
    return { engine, sides: results };
  } finally {
    await driver.stop().catch(() => undefined);
    for (const s of servers.reverse()) await s.stop().catch(() => undefined);
    await receiver.close();
  }
}

/** Waits until the server has no payout left INITIATED or PROCESSING (admin payout list, newest first). */
async function drainedOf(url: string, adminToken: string, log: (m: string) => void, label: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    const open = await Promise.all(
      ['INITIATED', 'PROCESSING', 'PENDING'].map(async (status) => {
        const page = await adminCall(url, adminToken, 'GET', `/admin/v1/payouts?status=${status}&limit=1`);
        const items = (page.payouts ?? page.items ?? page.data ?? []) as unknown[];
        return items.length;
      }),
    );
    if (open.every((n) => n === 0)) return;
    if (performance.now() - started > SETTLE_LIMIT_MS) throw new Error(`${label}: payouts still open after 300 s`);
    await sleep(250);
    if (Math.round(performance.now() - started) % 5000 < 250) log(`upstream: waiting for ${label}'s payouts to settle`);
  }
}

/** The table rows of the upstream scenario (bench/run.ts prints them in its table style). */
export function upstreamRows(r: UpstreamBenchResult): string[][] {
  const rows: string[][] = [];
  const sandbox = r.sides.find((s) => s.connector === 'sandbox');
  for (const s of r.sides) {
    const ratio =
      s.connector === 'upstream' && sandbox
        ? `${(s.initiation.rps / sandbox.initiation.rps).toFixed(2)} × sandbox`
        : '';
    rows.push(
      [
        r.engine,
        `initiation via ${s.connector} connector${s.initiation.failures ? ` (${s.initiation.failures} failed)` : ''}`,
        s.initiation.rps.toFixed(0),
        s.initiation.p50.toFixed(2),
        s.initiation.p99.toFixed(2),
        ratio,
      ],
      [
        r.engine,
        `initiation → SUCCESS via ${s.connector}, ${s.toSuccess.count} payouts at ${RATE}/s`,
        '',
        s.toSuccess.p50.toFixed(0),
        s.toSuccess.p99.toFixed(0),
        `max ${s.toSuccess.max.toFixed(0)} ms`,
      ],
      [
        r.engine,
        `backlog of ${s.backlog.payouts.toLocaleString('en')} via ${s.connector} → all SUCCESS (submitted in ${s.backlog.submittedSeconds.toFixed(1)} s)`,
        (s.backlog.payouts / s.backlog.seconds).toFixed(0),
        '',
        '',
        `${s.backlog.seconds.toFixed(1)} s`,
      ],
    );
  }
  return rows;
}

/** The upstream scenario's table, padded like bench/run.ts's. */
export function upstreamTable(results: UpstreamBenchResult[]): string {
  const rows = [['engine', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'note'], ...results.flatMap(upstreamRows)];
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length))) ?? [];
  const line = (row: string[]) =>
    `| ${row.map((cell, c) => (c >= 2 && c <= 4 ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(rows[0] as string[]), sep, ...rows.slice(1).map(line)].join('\n');
}
