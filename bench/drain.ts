import { Agent, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { encryptJson } from '@payrail/protocol';
import pg from 'pg';
import { adminCall, fundedBenchMerchant } from './benchMerchant.ts';
import { appName, startBenchServer } from './benchServer.ts';
import { benchPayout, cpuMsOf, rssOf, send, sleep } from './common.ts';

/** Payouts drained by the scenario. */
export const DRAIN_PAYOUTS = Number(process.env.BENCH_DRAIN_PAYOUTS ?? 10_000);
/** Issue 20's targets for the whole drain (initiations included), per engine: PGlite runs inside the server. */
export const DRAIN_TARGET_S = { postgres: 20, pglite: 40 } as const;
/** Issue 20's target for the PGlite server's resident memory during the drain. */
export const DRAIN_RSS_TARGET_MB = 300;
/**
 * PostgreSQL only: drain into this existing database instead of a fresh schema (a URL whose search_path holds
 * Payrail's tables, e.g. the schema `BENCH_ONLY=scale BENCH_SCALE_KEEP=1` kept), to compare the drain on a large
 * database with one on an empty schema (issue 35). The server's start migrates it; the drain adds its merchants and
 * payouts to it, and it is never dropped.
 */
const EXISTING = process.env.BENCH_DRAIN_DATABASE_URL;
const MERCHANTS = 100;
const STEP_MS = 50;
const CONNECTIONS = 32;

export interface DrainResult {
  payouts: number;
  /** From the first request until every payout is final and its `payout.success` webhook has arrived. */
  seconds: number;
  /** When the last initiation was answered: the submission part of `seconds`. */
  submittedSeconds: number;
  deliveries: number;
  /** The server process's largest resident set size during the drain, sampled every 200 ms (MB). */
  rssPeakMb: number;
  /**
   * CPU seconds the drain cost: the server process, and (PostgreSQL) its database backends. Unlike `seconds`, hardly
   * moved by other work on the machine, so runs under different loads compare.
   */
  serverCpuS: number;
  databaseCpuS: number | null;
  /** CPU seconds of this bench process (the client and the webhook receiver): not the server's, but the same cores. */
  clientCpuS: number;
}

/**
 * CPU time of the PostgreSQL backends of the bench server (application_name, bench/benchServer.ts), read from /proc
 * (the database runs on this machine): sampled, so that a backend that ends keeps what it had used by its last sample.
 */
function backendCpu(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let timer: NodeJS.Timeout | undefined;
  const sample = async () => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [appName('srv')],
    );
    for (const { pid } of rows) {
      const ms = cpuMsOf(pid);
      if (ms === null) continue;
      if (!first.has(pid)) first.set(pid, timer === undefined ? ms : 0);
      last.set(pid, ms);
    }
  };
  return {
    async start() {
      await client.connect();
      await sample();
      timer = setInterval(() => void sample().catch(() => undefined), 500);
    },
    async stop(): Promise<number> {
      clearInterval(timer);
      await sample().catch(() => undefined);
      await client.end().catch(() => undefined);
      let ms = 0;
      for (const [pid, v] of last) ms += v - (first.get(pid) ?? 0);
      return ms / 1000;
    },
  };
}

/** A merchant API call over kept-alive connections: the answer's envelope whatever its code. */
async function call(agent: Agent, url: URL, token: string, path: string, body: unknown) {
  const { body: answer } = await send(agent, url, {
    method: 'POST',
    path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return JSON.parse(answer.toString('utf8')) as Record<string, unknown>;
}

/** A webhook receiver that answers 200 at once and counts distinct `payout.success` events. */
async function successCounter(): Promise<{
  url: string;
  count: () => number;
  deliveries: () => number;
  server: Server;
}> {
  const seen = new Set<string>();
  let deliveries = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries++;
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string };
      if (event.type === 'payout.success') seen.add(event.id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, count: () => seen.size, deliveries: () => deliveries, server };
}

/** What the server still holds when a drain does not finish: its undelivered webhooks' last errors, counted. */
async function stuck(url: string, adminToken: string): Promise<string> {
  try {
    const page = await adminCall(url, adminToken, 'GET', '/admin/v1/webhooks/deliveries?state=pending&limit=100');
    const errors = new Map<string, number>();
    for (const d of page.data as { last_error: string | null; attempt_count: number }[]) {
      const key = `${d.last_error ?? 'not attempted yet'} (attempts ${d.attempt_count})`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
    }
    return `pending webhooks (first 100): ${JSON.stringify(Object.fromEntries(errors))}`;
  } catch (err) {
    return `(could not read the pending webhooks: ${(err as Error).message})`;
  }
}

/**
 * The drain scenario of issue 13: 10,000 sandbox payouts (a hundred merchants, single initiations over 32 connections)
 * with a 50 ms sandbox step, timed from the first request until every payout has reached SUCCESS and its
 * `payout.success` webhook has been delivered to a local receiver.
 */
export async function benchDrain(
  engine: 'pglite' | 'postgres',
  o: { databaseUrl?: string; env: NodeJS.ProcessEnv; adminToken: string; log: (m: string) => void },
): Promise<DrainResult> {
  const receiver = await successCounter();
  // Tokens are taken before the clock starts: they must outlive a slow run (a loaded machine).
  const settings = {
    PAYRAIL_SANDBOX_STEP_MS: String(STEP_MS),
    PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'true',
    PAYRAIL_TOKEN_TTL_SECONDS: '3600',
  };
  const existing = engine === 'postgres' ? EXISTING : undefined;
  if (existing) o.log(`drain: into the existing database ${existing}`);
  const server = await startBenchServer(engine, { ...o, settings, ...(existing ? { existing } : {}) });
  let rssPeak = 0;
  let stopRss = () => {};
  try {
    const bodies: { token: string; body: { payload: string } }[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const m = await fundedBenchMerchant(server.url, o.adminToken, `Drain ${i}`, '100000.00');
      const { token } = m;
      const keys = { apiKey: m.apiKey, secretKey: m.secretKey };
      const prefix = randomBytes(4).toString('hex');
      for (let k = 0; k < DRAIN_PAYOUTS / MERCHANTS; k++) {
        const payout = benchPayout(m.walletId, `dr${prefix}-${k}`, `${receiver.url}/drain`);
        // Merchant i's k-th payout at k × MERCHANTS + i: consecutive requests go to different wallets.
        bodies[k * MERCHANTS + i] = { token, body: { payload: encryptJson(payout, 'v2', keys) } };
      }
    }
    o.log(`drain: ${DRAIN_PAYOUTS} single initiations over ${CONNECTIONS} connections, sandbox step ${STEP_MS} ms`);
    const cpuBefore = cpuMsOf(server.child.pid) ?? 0;
    const clientBefore = process.cpuUsage();
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const target = new URL(server.url);
    const backendsUrl = existing ?? o.databaseUrl;
    const backends = engine === 'postgres' && backendsUrl ? backendCpu(backendsUrl) : null;
    await backends?.start();
    const started = performance.now();
    const rss = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssOf(server.child.pid) ?? 0);
    }, 200);
    stopRss = () => clearInterval(rss);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < bodies.length) {
          const b = bodies[next++] as (typeof bodies)[number];
          const answer = await call(agent, target, b.token, '/payout/v1/initiate', b.body);
          if (answer.resp_code !== 2000) {
            throw new Error(
              `drain: initiation ${next} answered ${JSON.stringify(answer)}\n${server.child.output.join('').slice(-2000)}`,
            );
          }
        }
      }),
    );
    const submittedSeconds = (performance.now() - started) / 1000;
    let lastLog = performance.now();
    while (receiver.count() < DRAIN_PAYOUTS) {
      if (performance.now() - started > 300_000) {
        throw new Error(`drain: only ${receiver.count()} after 300 s; ${await stuck(server.url, o.adminToken)}`);
      }
      if (performance.now() - lastLog > 5000) {
        o.log(`drain: ${receiver.count()} of ${DRAIN_PAYOUTS} settled and delivered`);
        lastLog = performance.now();
      }
      await sleep(20);
    }
    const seconds = (performance.now() - started) / 1000;
    stopRss();
    rssPeak = Math.max(rssPeak, rssOf(server.child.pid) ?? 0);
    const rssPeakMb = rssPeak / 2 ** 20;
    const serverCpuS = ((cpuMsOf(server.child.pid) ?? 0) - cpuBefore) / 1000;
    const databaseCpuS = backends ? await backends.stop() : null;
    const clientUsage = process.cpuUsage(clientBefore);
    const clientCpuS = (clientUsage.user + clientUsage.system) / 1e6;
    agent.destroy();
    o.log(
      `drain: ${seconds.toFixed(1)} s, server RSS peak ${rssPeakMb.toFixed(0)} MB, CPU server ${serverCpuS.toFixed(1)} s` +
        (databaseCpuS === null ? '' : ` + database ${databaseCpuS.toFixed(1)} s`) +
        `; this client and receiver ${clientCpuS.toFixed(1)} s`,
    );
    return {
      payouts: DRAIN_PAYOUTS,
      seconds,
      submittedSeconds,
      deliveries: receiver.deliveries(),
      rssPeakMb,
      serverCpuS,
      databaseCpuS,
      clientCpuS,
    };
  } finally {
    stopRss();
    await server.stop();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}

/**
 * The table row of the drain scenario: time against the engine's target; on PGlite (the database inside the server
 * process) the server's peak RSS too, against its target.
 */
export function drainRow(engine: 'pglite' | 'postgres', r: DrainResult): string[] {
  const target = DRAIN_TARGET_S[engine];
  const rssOk = engine !== 'pglite' || r.rssPeakMb < DRAIN_RSS_TARGET_MB;
  return [
    engine,
    `drain ${r.payouts.toLocaleString('en')} payouts + webhooks (submitted in ${r.submittedSeconds.toFixed(1)} s)`,
    (r.payouts / r.seconds).toFixed(0),
    '',
    '',
    `${r.seconds.toFixed(1)} s, RSS peak ${r.rssPeakMb.toFixed(0)} MB, CPU ${r.serverCpuS.toFixed(0)} s` +
      (r.databaseCpuS === null ? '' : ` + db ${r.databaseCpuS.toFixed(0)} s`),
    `< ${target} s${engine === 'pglite' ? `, < ${DRAIN_RSS_TARGET_MB} MB` : ''}`,
    r.seconds < target && rssOk ? 'yes' : 'NO',
    '',
  ];
}
