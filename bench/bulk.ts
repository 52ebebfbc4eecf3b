import { randomBytes } from 'node:crypto';
import { decryptJsonObject, encryptJson } from '@payrail/protocol';
import { fundedBenchMerchant } from './benchMerchant.ts';
import { startBenchServer } from './benchServer.ts';
import { benchPayout, percentile } from './common.ts';

/**
 * The bulk scenario (docs/internals/performance.md: a 1,000-item batch answered in under 2 s on PostgreSQL): against a running
 * server, one merchant sends a 1,000-item batch (one request), then the same 1,000 payouts as single initiations
 * over `connections` connections, in alternating rounds, after one warm-up round. Bodies are encrypted before the
 * clock starts; the times are the client's wall clock from the first byte sent to the last answer read.
 */

export interface BulkBenchOptions {
  url: string;
  adminToken: string;
  connections: number;
  rounds: number;
  log: (message: string) => void;
}

export interface BulkBenchResult {
  /** Wall time of each measured 1,000-item batch, ms. */
  batchMs: number[];
  /** Wall time of each measured run of 1,000 single initiations, ms. */
  singlesMs: number[];
  connections: number;
}

export const BULK_TARGET_MS = 2000;
const ITEMS = 1000;

export async function benchBulk(o: BulkBenchOptions): Promise<BulkBenchResult> {
  const m = await fundedBenchMerchant(o.url, o.adminToken, 'Bench Bulk', '100000000.00');
  const { token } = m;
  const keys = { apiKey: m.apiKey, secretKey: m.secretKey };
  // At most `connections` requests in flight (fetch keeps its connections alive): the same count as autocannon's.
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = async (path: string, body: string) => {
    const res = await fetch(o.url + path, { method: 'POST', headers, body });
    const json = (await res.json()) as { resp_code: number; data?: string };
    return json;
  };

  const batchRound = async () => {
    const prefix = randomBytes(4).toString('hex');
    const items = Array.from({ length: ITEMS }, (_, i) => benchPayout(m.walletId, `bk${prefix}-${i}`));
    const body = JSON.stringify({ payload: encryptJson({ batch_id: `b${prefix}`, items }, 'v2', keys) });
    const started = performance.now();
    const answer = await post('/payout/v1/bulk', body);
    const ms = performance.now() - started;
    const data = answer.data ? decryptJsonObject(answer.data, 'v2', keys) : undefined;
    const accepted = (data?.summary as { accepted?: number } | undefined)?.accepted;
    if (answer.resp_code !== 2000 || accepted !== ITEMS) {
      throw new Error(`bulk: answer ${answer.resp_code}, ${accepted} of ${ITEMS} accepted`);
    }
    return ms;
  };

  const singlesRound = async () => {
    const prefix = randomBytes(4).toString('hex');
    const bodies = Array.from({ length: ITEMS }, (_, i) =>
      JSON.stringify({ payload: encryptJson(benchPayout(m.walletId, `sg${prefix}-${i}`), 'v2', keys) }),
    );
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: o.connections }, async () => {
        while (next < bodies.length) {
          const answer = await post('/payout/v1/initiate', bodies[next++] as string);
          if (answer.resp_code !== 2000) failed++;
        }
      }),
    );
    const ms = performance.now() - started;
    if (failed) throw new Error(`singles: ${failed} of ${ITEMS} failed`);
    return ms;
  };

  {
    o.log('bulk: warm-up (one batch, one run of singles)');
    await batchRound();
    await singlesRound();
    const batchMs: number[] = [];
    const singlesMs: number[] = [];
    for (let round = 0; round < o.rounds; round++) {
      batchMs.push(await batchRound());
      singlesMs.push(await singlesRound());
      o.log(
        `bulk round ${round + 1}/${o.rounds}: 1,000-item batch ${batchMs.at(-1)?.toFixed(0)} ms; ` +
          `1,000 single initiations over ${o.connections} connections ${singlesMs.at(-1)?.toFixed(0)} ms`,
      );
    }
    return { batchMs, singlesMs, connections: o.connections };
  }
}

/**
 * `BENCH_ONLY=bulk npm run bench`: the bulk scenario alone, on a server of its own (PGlite in a temp directory, or
 * a fresh PostgreSQL schema when `databaseUrl` is given), without the other scenarios.
 */
export async function benchBulkAlone(
  engine: 'pglite' | 'postgres',
  o: Omit<BulkBenchOptions, 'url'> & { databaseUrl?: string; env: NodeJS.ProcessEnv },
): Promise<BulkBenchResult> {
  const server = await startBenchServer(engine, o);
  try {
    return await benchBulk({ ...o, url: server.url });
  } finally {
    await server.stop();
  }
}

/** Rows of the bench table: the batch time (median and worst) against the target, and the singles beside it. */
export function bulkRows(engine: string, r: BulkBenchResult): string[][] {
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const batch = sorted(r.batchMs);
  const singles = sorted(r.singlesMs);
  const worst = batch[batch.length - 1] ?? 0;
  const perSecond = (ms: number) => ((ITEMS * 1000) / ms).toFixed(0);
  return [
    [
      engine,
      `1,000-item batch, one request (${batch.length} rounds)`,
      perSecond(percentile(batch, 50)),
      percentile(batch, 50).toFixed(0),
      worst.toFixed(0),
      '',
      'worst < 2000 ms',
      engine === 'postgres' ? (worst < BULK_TARGET_MS ? 'yes' : 'NO') : '',
      '',
    ],
    [
      engine,
      `1,000 single initiations, ${r.connections} connections`,
      perSecond(percentile(singles, 50)),
      percentile(singles, 50).toFixed(0),
      (singles[singles.length - 1] ?? 0).toFixed(0),
      `${(percentile(singles, 50) / percentile(batch, 50)).toFixed(1)} × batch`,
      'comparison',
      '',
      '',
    ],
  ];
}
