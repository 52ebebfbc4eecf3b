import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../src/store/pgDatabase.ts';
import { exitWithin, freePort, spawnServer, type ChildServer } from './support/childServer.ts';
import { http } from './support/merchantClient.ts';
import { createTestSchema, ENGINES } from './support/testServer.ts';

const ADMIN_TOKEN = 'shutdown-admin-token';

interface Outcome {
  kind: 'merchant' | 'credit' | 'ready';
  status?: number;
  body?: Record<string, unknown>;
  error?: string;
  at: number;
}

/** SIGTERM while requests are in flight: each one that gets an answer gets a complete one, then exit 0. */
describe.each(ENGINES)('graceful shutdown on %s', (engine) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('finishes in-flight requests, answers each completely, and exits 0', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payrail-shutdown-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      PORT: String(await freePort()),
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
    };
    let schema = '';
    if (engine === 'postgres') {
      const created = await createTestSchema();
      schema = created.schema;
      cleanups.push(created.drop);
      env.DATABASE_URL = `${process.env.TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    }
    const server: ChildServer = spawnServer(env);
    cleanups.push(() => server.kill());
    await server.ready(90_000);

    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const setup = await http(server.url, 'POST', '/admin/v1/merchants', { body: { name: 'Shutdown' }, headers: auth });
    expect(setup.status).toBe(201);
    const walletId = setup.body.wallet_id as string;

    const outcomes: Outcome[] = [];
    const requests = Array.from({ length: 60 }, (_, i) => {
      const kind = (['merchant', 'credit', 'ready'] as const)[i % 3] as Outcome['kind'];
      const sent =
        kind === 'merchant'
          ? http(server.url, 'POST', '/admin/v1/merchants', { body: { name: `In flight ${i}` }, headers: auth })
          : kind === 'credit'
            ? http(server.url, 'POST', `/admin/v1/wallets/${walletId}/credits`, {
                body: { amount: '1.00', reference: `inflight-${i}` },
                headers: auth,
              })
            : http(server.url, 'GET', '/readyz');
      return sent.then(
        (res) => outcomes.push({ kind, status: res.status, body: res.body, at: Date.now() }),
        (err: Error) =>
          outcomes.push({ kind, error: String((err.cause as Error | undefined)?.message ?? err), at: Date.now() }),
      );
    });

    // Signal as soon as the server has answered one of them: the rest are in its hands.
    while (outcomes.length === 0) await new Promise((r) => setTimeout(r, 1));
    const signalledAt = Date.now();
    server.proc.kill('SIGTERM');
    const exit = await exitWithin(server, 15_000);
    await Promise.all(requests);

    expect(exit, JSON.stringify(server.output())).toEqual({ code: 0, signal: null });
    const answered = outcomes.filter((o) => o.status !== undefined);
    // Requests still being handled when the signal came were finished, not dropped.
    expect(answered.filter((o) => o.at > signalledAt).length).toBeGreaterThan(0);
    for (const o of answered) {
      if (o.kind === 'merchant') {
        expect(o.status).toBe(201);
        expect(o.body).toMatchObject({ merchant_id: expect.stringMatching(/^MR/), wallet_id: expect.any(String) });
      } else if (o.kind === 'credit') {
        expect(o.status).toBe(200);
        expect(o.body).toMatchObject({ wallet_id: walletId, balance: expect.stringMatching(/^\d+\.\d{2}$/) });
      } else {
        expect(o.status).toBe(200);
        expect(o.body).toEqual({ status: 'ok' });
      }
    }
    // The rest were refused at the door (connection refused or closed), never answered half-way.
    for (const o of outcomes.filter((x) => x.status === undefined)) {
      expect(o.error).toMatch(/ECONNREFUSED|ECONNRESET|other side closed|socket hang up|fetch failed|terminated/i);
    }
    // Nothing on stderr but the lines `npm start` prints for people at start (what it does, where it listens).
    const unexpected = server
      .output()
      .stderr.split('\n')
      .filter((line) => line.trim() && !/^(Preparing|Opening|Connecting|Payrail listening)\b/.test(line));
    expect(unexpected).toEqual([]);

    if (engine === 'pglite') {
      // The embedded database was closed and the data directory released.
      expect(existsSync(join(dataDir, 'payrail.lock'))).toBe(false);
    } else {
      // Every acknowledged write is in the database.
      const db = createPgDatabase({ url: process.env.TEST_DATABASE_URL as string, schema });
      try {
        const { rows } = await db.query<{ id: string }>('SELECT id FROM merchants');
        const stored = new Set(rows.map((r) => r.id));
        for (const o of answered.filter((x) => x.kind === 'merchant'))
          expect(stored.has(o.body?.merchant_id as string)).toBe(true);
        const credited = answered.filter((x) => x.kind === 'credit').length;
        const { rows: w } = await db.query<{ balance: bigint }>('SELECT balance FROM wallets WHERE id = $1', [
          walletId,
        ]);
        expect(Number(w[0]?.balance)).toBeGreaterThanOrEqual(credited * 100);
      } finally {
        await db.close();
      }
    }
  }, 120_000);
});
