import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/** True once something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Issue 10 finding 9: with Redis unreachable the token endpoints answered 5000. The failed-token throttle now
 * falls back to in-process counters (SECURITY.md): tokens are issued, failures are still counted and limited.
 */
const PER_KEY = 3;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const token = (url: string, m: TestMerchant, secretKey = m.secret_key) =>
  http(url, 'POST', '/v1/auth/client-token', { body: { apiKey: m.api_key, secretKey } });

/** Tokens are issued, wrong secrets are 4001 and the key locks after PER_KEY failures: never 5000. */
async function expectThrottleWorks(url: string) {
  const m = await createMerchant(url);
  expect((await token(url, m)).status).toBe(200);
  for (let i = 0; i < PER_KEY; i++) expect((await token(url, m, 'Z'.repeat(16))).status).toBe(401);
  const locked = await token(url, m);
  expect(locked.status).toBe(429);
  expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
}

const STATUS_PER_MINUTE = 3;

const env = (redisUrl: string) => ({
  REDIS_URL: redisUrl,
  PAYRAIL_TOKEN_FAILURES_PER_KEY: String(PER_KEY),
  PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000',
  PAYRAIL_RATE_LIMIT_PER_MINUTE: String(STATUS_PER_MINUTE),
});

/** The status limit keeps counting (in memory): the request past the limit is 4290, never let through or 5000. */
async function expectStatusLimitWorks(url: string) {
  const client = await MerchantClient.connect(url, await createMerchant(url), 'v2');
  for (let i = 0; i < STATUS_PER_MINUTE; i++) {
    const res = await client.get('/payout/v1/status?sender_id=nobody');
    expect(res.body.resp_code).toBe(4103);
  }
  const limited = await client.get('/payout/v1/status?sender_id=nobody');
  expect(limited.status).toBe(429);
  expect(limited.body.resp_code).toBe(4290);
}

describe('token throttle and status rate limit while Redis is unreachable', () => {
  const servers: TestServer[] = [];
  let redis: ChildProcess | undefined;
  afterAll(async () => {
    for (const s of servers.reverse()) await s.close();
    redis?.kill('SIGKILL');
  });

  it('REDIS_URL pointing at a closed port: tokens and the throttle work from process memory', async () => {
    const t = await startTestServer('pglite', { env: env(`redis://127.0.0.1:${await freePort()}`) });
    servers.push(t);
    await expectThrottleWorks(t.url);
    await expectStatusLimitWorks(t.url);
  }, 180_000);

  it('Redis stopped mid-run: the next requests fall back at once', async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await eventually(() => listening(port), 10_000);
    const t = await startTestServer('pglite', { env: env(`redis://127.0.0.1:${port}`) });
    servers.push(t);
    const m = await createMerchant(t.url);
    expect((await token(t.url, m)).status).toBe(200);
    redis.kill('SIGKILL');
    await sleep(200);
    const started = Date.now();
    await expectThrottleWorks(t.url);
    await expectStatusLimitWorks(t.url);
    expect((await token(t.url, m)).status).toBe(200);
    // No request waited for Redis' reconnection attempts.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 180_000);
});
