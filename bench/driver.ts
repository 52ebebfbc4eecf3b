import { readFileSync } from 'node:fs';
import { encryptJson } from '@payrail/protocol';
import autocannon from 'autocannon';
import { benchPayout, type LoadResult } from './common.ts';

/**
 * The load generator, run in a process of its own (never in the server's): reads a plan, precomputes every
 * request (encrypted payloads, fresh sender_ids, tokens), then drives the server with autocannon and prints
 * the result as one `RESULT {json}` line.
 */

export interface DriverMerchant {
  token: string;
  apiKey: string;
  secretKey: string;
  walletId: string;
}

export interface DriverPlan {
  url: string;
  kind: 'initiate' | 'status';
  connections: number;
  durationSec: number;
  /** Requests per second over all connections; absent: as fast as the server answers. */
  overallRate?: number;
  /** initiate: requests rotate over these merchants (one for the hot-wallet scenario). */
  merchants?: DriverMerchant[];
  /** Prefix of this run's sender_ids, so that every request is a new payout. */
  senderPrefix?: string;
  /** How many initiation bodies to precompute (more are made on the fly if the run outpaces them). */
  precompute?: number;
  /** status: requests rotate over these (token, path) pairs. */
  statusTargets?: { token: string; path: string }[];
}

interface Prepared {
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function prepare(plan: DriverPlan): () => Prepared {
  if (plan.kind === 'status') {
    const targets = (plan.statusTargets ?? []).map((t) => ({
      path: t.path,
      headers: { authorization: `Bearer ${t.token}` },
    }));
    if (targets.length === 0) throw new Error('status plan without targets');
    let i = 0;
    return () => targets[i++ % targets.length] as Prepared;
  }
  const merchants = plan.merchants ?? [];
  if (merchants.length === 0) throw new Error('initiate plan without merchants');
  const prefix = plan.senderPrefix ?? `b${Date.now().toString(36)}`;
  const make = (n: number): Prepared => {
    const m = merchants[n % merchants.length] as DriverMerchant;
    const keys = { apiKey: m.apiKey, secretKey: m.secretKey };
    return {
      path: '/payout/v1/initiate',
      headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        payload: encryptJson(benchPayout(m.walletId, `${prefix}-${n.toString(36)}`), 'v2', keys),
      }),
    };
  };
  const ready = Array.from({ length: plan.precompute ?? 20_000 }, (_, n) => make(n));
  let next = 0;
  return () => {
    const n = next++;
    return n < ready.length ? (ready[n] as Prepared) : make(n);
  };
}

/** Runs one plan: precomputes its requests, then drives the server with autocannon. */
export async function runPlan(plan: DriverPlan): Promise<LoadResult> {
  const nextRequest = prepare(plan);
  const result = await autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: plan.durationSec,
    ...(plan.overallRate ? { overallRate: plan.overallRate } : {}),
    timeout: 30,
    requests: [
      {
        method: plan.kind === 'status' ? 'GET' : 'POST',
        setupRequest: (request) => {
          const r = nextRequest();
          return { ...request, path: r.path, headers: r.headers, ...(r.body ? { body: r.body } : {}) };
        },
      },
    ],
  });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    total: result.requests.total,
    failures: result.non2xx + result.errors,
    detail: {
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: result.statusCodeStats,
      p999: result.latency.p99_9,
      max: result.latency.max,
    },
  };
}

/**
 * One driver process serves the whole benchmark: plans arrive over IPC (`{ id, plan }`) and each answer is
 * `{ id, result }` or `{ id, error }`. Plans run one at a time. With a file argument it runs that plan once and
 * prints `RESULT {json}`.
 */
async function main() {
  if (process.argv[2]) {
    const plan = JSON.parse(readFileSync(process.argv[2], 'utf8')) as DriverPlan;
    process.stdout.write(`RESULT ${JSON.stringify(await runPlan(plan))}\n`);
    return;
  }
  if (!process.send) throw new Error('driver: give a plan file, or start it with an IPC channel');
  let queue = Promise.resolve();
  process.on('message', (message: { id: number; plan: DriverPlan }) => {
    queue = queue.then(async () => {
      try {
        process.send?.({ id: message.id, result: await runPlan(message.plan) });
      } catch (err) {
        process.send?.({ id: message.id, error: (err as Error).stack ?? String(err) });
      }
    });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}

void main().catch((err) => {
  process.stderr.write(`driver failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
