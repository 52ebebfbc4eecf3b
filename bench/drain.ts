import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { encryptJson } from '@payrail/protocol';
import { fundedBenchMerchant } from './benchMerchant.ts';
import { startBenchServer } from './benchServer.ts';
import { benchPayout, sleep } from './common.ts';

/** Payouts drained by the scenario, and the target time of issue 13. */
export const DRAIN_PAYOUTS = Number(process.env.BENCH_DRAIN_PAYOUTS ?? 10_000);
export const DRAIN_TARGET_S = 30;
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
}

/** A merchant API call: the answer's envelope whatever its code. */
async function call(url: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await res.json()) as Record<string, unknown>;
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
  const server = await startBenchServer(engine, {
    ...o,
    settings: { PAYRAIL_SANDBOX_STEP_MS: String(STEP_MS), PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
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
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < bodies.length) {
          const b = bodies[next++] as (typeof bodies)[number];
          const answer = await call(server.url, b.token, 'POST', '/payout/v1/initiate', b.body);
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
      if (performance.now() - started > 300_000) throw new Error(`drain: only ${receiver.count()} after 300 s`);
      if (performance.now() - lastLog > 5000) {
        o.log(`drain: ${receiver.count()} of ${DRAIN_PAYOUTS} settled and delivered`);
        lastLog = performance.now();
      }
      await sleep(20);
    }
    const seconds = (performance.now() - started) / 1000;
    return { payouts: DRAIN_PAYOUTS, seconds, submittedSeconds, deliveries: receiver.deliveries() };
  } finally {
    await server.stop();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}

/** The table row of the drain scenario. */
export function drainRow(engine: string, r: DrainResult): string[] {
  return [
    engine,
    `drain ${r.payouts.toLocaleString('en')} payouts + webhooks (submitted in ${r.submittedSeconds.toFixed(1)} s)`,
    (r.payouts / r.seconds).toFixed(0),
    '',
    '',
    `${r.seconds.toFixed(1)} s`,
    `< ${DRAIN_TARGET_S} s`,
    r.seconds < DRAIN_TARGET_S ? 'yes' : 'NO',
    '',
  ];
}
