import { encryptJson } from '@payrail/protocol';
import autocannon from 'autocannon';
import { benchPayout, serveIpc, type RawRun } from './common.ts';

/**
 * The load generator, run in a process of its own (never in the server's): for each plan it precomputes every
 * request (encrypted payloads, fresh sender_ids, tokens), then drives the target with autocannon and reports
 * every response's latency.
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
export async function runPlan(plan: DriverPlan): Promise<RawRun> {
  const nextRequest = prepare(plan);
  const latencies: number[] = [];
  let failures = 0;
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
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
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
  instance?.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    if (statusCode < 200 || statusCode > 299) failures++;
  });
  const result = await done;
  return {
    seconds: result.duration,
    latencies,
    failures: failures + result.errors,
    detail: { errors: result.errors, timeouts: result.timeouts, statusCodes: result.statusCodeStats },
  };
}

/** One driver process serves the whole benchmark (no start-up per scenario): plans arrive over IPC. */
serveIpc((message: { plan: DriverPlan }) => runPlan(message.plan));
