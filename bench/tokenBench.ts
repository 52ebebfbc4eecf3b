import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptV1 } from '@payrail/protocol';
import { generateCredentials, generateWebhookSecret } from '../packages/server/src/domain/credentials.ts';
import { newId } from '../packages/server/src/domain/ids.ts';
import { openDatabase } from '../packages/server/src/store/openDatabase.ts';
import { MerchantRepository } from '../packages/server/src/store/repositories/MerchantRepository.ts';
import { SecretBox } from '../packages/server/src/store/SecretBox.ts';
import { WalletRepository } from '../packages/server/src/store/repositories/WalletRepository.ts';
import { buildServer, cpuMsOf, freePort, sleep, spawnServer, stopChild, waitHealthy } from './common.ts';

/**
 * The V1 token lookup at scale (issue 9): server CPU time of one token request with BENCH_TOKEN_MERCHANTS
 * (default 10,000) merchants in the database. PGlite in a temporary directory; the merchants are written through
 * the repositories before the server starts (the admin API would take minutes), then the server is measured
 * over sequential requests, each for another merchant:
 *   - V1 without X-Api-Key (the provider interface's request; the in-memory first-block index finds the merchant),
 *   - V1 with X-Api-Key (the fast path, a lookup by API key),
 *   - V2 (plain credentials), for comparison,
 *   - V1 without X-Api-Key in a shape the index does not know (a field before apiKey): the bounded scan.
 */
export interface TokenBenchRow {
  label: string;
  requests: number;
  cpuMsPerReq: number;
  p50Ms: number;
}

const MERCHANTS = Number(process.env.BENCH_TOKEN_MERCHANTS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_TOKEN_REQUESTS ?? 300);

type Keys = { apiKey: string; secretKey: string };

/** With PAYRAIL_MASTER_KEY in the environment the merchants are sealed under it (the server gets it too). */
async function seed(dataDir: string, masterKey: string | undefined): Promise<Keys[]> {
  const repo = new MerchantRepository(masterKey ? SecretBox.withKeys(Buffer.from(masterKey, 'base64')) : undefined);
  const db = await openDatabase({ dataDir });
  const keys: Keys[] = [];
  try {
    for (let i = 0; i < MERCHANTS; i += 500) {
      await db.transaction(async (tx) => {
        for (let j = i; j < Math.min(MERCHANTS, i + 500); j++) {
          const creds = generateCredentials();
          const m = await repo.insert(tx, {
            id: newId('merchant', Date.now()),
            name: `Token bench ${j}`,
            ...creds,
            webhookSecret: generateWebhookSecret(),
          });
          await WalletRepository.insert(tx, newId('wallet', Date.now()), m.id);
          keys.push(creds);
        }
      });
    }
  } finally {
    await db.close();
  }
  return keys;
}

export async function benchTokens(log: (message: string) => void, env: NodeJS.ProcessEnv): Promise<TokenBenchRow[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'payrail-bench-token-'));
  try {
    log(`token bench: writing ${MERCHANTS} merchants`);
    const keys = await seed(dataDir, env.PAYRAIL_MASTER_KEY);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await buildServer();
    const server = spawnServer({
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: randomBytes(24).toString('hex'),
      LOG_LEVEL: 'warn',
      PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '1000000',
    });
    try {
      await waitHealthy(`${url}/healthz`, server);
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
        const started = performance.now();
        const res = await fetch(url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
        return performance.now() - started;
      };
      const scenarios: [string, number, (k: Keys) => Promise<number>][] = [
        [
          'V1 without X-Api-Key',
          REQUESTS,
          (k) => post('/v1/auth/clients/token', { payload: encryptV1(JSON.stringify(k), k) }),
        ],
        [
          'V1 with X-Api-Key',
          REQUESTS,
          (k) =>
            post('/v1/auth/clients/token', { payload: encryptV1(JSON.stringify(k), k) }, { 'x-api-key': k.apiKey }),
        ],
        ['V2', REQUESTS, (k) => post('/v1/auth/client-token', k)],
        [
          'V1 without X-Api-Key, unusual shape (scan)',
          Math.min(REQUESTS, 20),
          // Spaced out: scans are limited to 2 a second.
          async (k) => {
            const ms = await post('/v1/auth/clients/token', {
              payload: encryptV1(JSON.stringify({ requestId: 'r1', ...k }), k),
            });
            await sleep(250);
            return ms;
          },
        ],
      ];
      const rows: TokenBenchRow[] = [];
      let next = 0;
      // Warm-up of every fast path first (on other merchants): whichever scenario ran first would otherwise pay
      // for the JIT.
      for (let i = 0; i < 100; i++) {
        for (const [, , send] of scenarios.slice(0, 3)) await send(keys[next++ % keys.length] as Keys);
      }
      for (const [label, n, send] of scenarios) {
        const before = cpuMsOf(server.pid) ?? 0;
        const latencies: number[] = [];
        for (let i = 0; i < n; i++) latencies.push(await send(keys[next++ % keys.length] as Keys));
        const cpu = (cpuMsOf(server.pid) ?? 0) - before;
        latencies.sort((a, b) => a - b);
        const row = { label, requests: n, cpuMsPerReq: cpu / n, p50Ms: latencies[Math.floor(n / 2)] ?? 0 };
        log(`token bench: ${label}: ${row.cpuMsPerReq.toFixed(2)} ms CPU/req, p50 ${row.p50Ms.toFixed(2)} ms`);
        rows.push(row);
      }
      return rows;
    } finally {
      await stopChild(server);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The rows as a small table. */
export function tokenTable(rows: TokenBenchRow[]): string {
  const lines = rows.map(
    (r) =>
      `| ${r.label.padEnd(44)} | ${String(r.requests).padStart(8)} | ${r.cpuMsPerReq.toFixed(2).padStart(10)} | ${r.p50Ms.toFixed(2).padStart(6)} |`,
  );
  return [
    `Token requests with ${MERCHANTS} merchants in the database (PGlite, sequential requests, one merchant each):`,
    `| ${'scenario'.padEnd(44)} | requests | CPU ms/req | p50 ms |`,
    `|${'-'.repeat(46)}|----------|------------|--------|`,
    ...lines,
  ].join('\n');
}
