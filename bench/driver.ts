import { Agent } from 'node:http';
import { encryptJson } from '@payrail/protocol';
import autocannon from 'autocannon';
import { benchPayout, send, serveIpc, type RawRun } from './common.ts';

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
  /**
   * With overallRate: send on a fixed schedule (open loop, one request every 1/rate s, at most `connections` at
   * a time) instead of through autocannon, whose rate limit lets each connection send its whole per-second
   * quota back to back and then idle, so that the server sees bursts at full load. Latency is counted from
   * each request's scheduled time, so queueing behind a slow answer is not hidden.
   */
  paced?: boolean;
  /** initiate: requests rotate over these merchants (one for the hot-wallet scenario). */
  merchants?: DriverMerchant[];
  /** Prefix of this run's sender_ids, so that every request is a new payout. */
  senderPrefix?: string;
  /** How many initiation bodies to precompute (more are made on the fly if the run outpaces them). */
  precompute?: number;
  /** initiate: every payout's callback_url (the soak benchmark's webhook receiver); absent: no webhooks. */
  callbackUrl?: string;
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
        payload: encryptJson(benchPayout(m.walletId, `${prefix}-${n.toString(36)}`, plan.callbackUrl), 'v2', keys),
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

/** The open-loop schedule of `paced` plans. */
export async function runPaced(plan: DriverPlan): Promise<RawRun> {
  const rate = plan.overallRate as number;
  const nextRequest = prepare(plan);
  const agent = new Agent({ keepAlive: true, maxSockets: plan.connections });
  const base = new URL(plan.url);
  const method = plan.kind === 'status' ? 'GET' : 'POST';
  const latencies: number[] = [];
  let failures = 0;
  const inFlight = new Set<Promise<void>>();
  const interval = 1000 / rate;
  const start = performance.now() + 20;
  const count = Math.floor(plan.durationSec * rate);
  let i = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      for (; i < count && start + i * interval <= now; i++) {
        const scheduled = start + i * interval;
        const p = send(agent, base, { method, ...nextRequest() }).then(
          ({ status }) => {
            latencies.push(performance.now() - scheduled);
            if (status < 200 || status > 299) failures++;
          },
          () => {
            failures++;
          },
        );
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      if (i >= count) {
        void Promise.allSettled([...inFlight]).then(() => resolve());
        return;
      }
      setTimeout(tick, Math.max(0, start + i * interval - performance.now()));
    };
    tick();
  });
  agent.destroy();
  return { seconds: (performance.now() - start) / 1000, latencies, failures };
}

/** One driver process serves the whole benchmark (no start-up per scenario): plans arrive over IPC. */
serveIpc((message: { plan: DriverPlan }) =>
  message.plan.paced && message.plan.overallRate ? runPaced(message.plan) : runPlan(message.plan),
);
