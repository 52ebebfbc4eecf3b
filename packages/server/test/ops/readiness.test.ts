import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailable } from '../../src/domain/DatabaseUnavailable.ts';
import { startFailure } from '../../src/startFailure.ts';
import { exitWithin, freePort, spawnServer, type ChildServer } from '../support/childServer.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

const ready = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** A Redis that does not answer is degraded, not unready: /readyz stays 200 and says so (issue 33). */
describe('/readyz and Redis', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('says nothing of Redis when none is configured', async () => {
    const t = await startTestServer('pglite');
    servers.push(t);
    expect(await ready(t.url)).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('stays 200 with redis "unreachable" and degraded while the configured Redis refuses connections', async () => {
    // Port 9 (discard) on loopback: nothing listens there.
    const t = await startTestServer('pglite', { env: { REDIS_URL: 'redis://127.0.0.1:9' } });
    servers.push(t);
    expect(await ready(t.url)).toEqual({ status: 200, body: { status: 'ok', redis: 'unreachable', degraded: true } });
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('says redis "ok" and not degraded while Redis answers', async () => {
    const t = await startTestServer('pglite', { env: { REDIS_URL: process.env.TEST_REDIS_URL as string } });
    servers.push(t);
    let last = await ready(t.url);
    // The client connects in the background after the start.
    for (let i = 0; i < 100 && last.body.redis !== 'ok'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = await ready(t.url);
    }
    expect(last).toEqual({ status: 200, body: { status: 'ok', redis: 'ok', degraded: false } });
  });
});

describe('a start refused by the database', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('names the address and the cause, never the password', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payrail-refused-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    // A free port: nothing listens there, so the connection is refused.
    const dbPort = await freePort();
    const child: ChildServer = spawnServer({
      PORT: String(await freePort()),
      PAYRAIL_DATA_DIR: dataDir,
      DATABASE_URL: `postgres://payrail:s3cret-Passw0rd@127.0.0.1:${dbPort}/payrail`,
    });
    cleanups.push(() => child.kill());
    const exit = await exitWithin(child, 60_000);
    const { stdout, stderr } = child.output();
    expect(exit.code, stderr).toBe(1);
    expect(stderr).toContain(`payrail: failed to start: database unavailable at 127.0.0.1:${dbPort} (ECONNREFUSED)`);
    expect(stdout + stderr).not.toContain('s3cret-Passw0rd');
  }, 90_000);

  it('falls back to the URL host and the message when the socket says nothing', () => {
    const timeout = new DatabaseUnavailable(new Error('timeout expired'));
    expect((startFailure(timeout, 'postgres://u:pw@db.internal/payrail') as Error).message).toBe(
      'database unavailable at db.internal:5432 (timeout expired)',
    );
    // A host resolving to several addresses fails once per address; the first is named.
    const both = Object.assign(new AggregateError([{ code: 'ECONNREFUSED', address: '::1', port: 5432 }]), {
      code: 'ECONNREFUSED',
    });
    expect((startFailure(new DatabaseUnavailable(both), 'postgres://localhost/x') as Error).message).toBe(
      'database unavailable at ::1:5432 (ECONNREFUSED)',
    );
    // Anything else is reported as it is.
    const other = new Error('the database schema is at 40 but this build knows up to 38');
    expect(startFailure(other, undefined)).toBe(other);
  });
});
