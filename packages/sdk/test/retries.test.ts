import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encryptJson } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffDelay, RequestBudget, retryAfterMs } from '../src/backoff.ts';
import { freePort } from '../../server/test/support/childServer.ts';
import { toError } from '../src/classify.ts';
import {
  BankUnavailableError,
  ConfigurationError,
  DecryptionError,
  InsufficientFundsError,
  NetworkError,
  Payrail,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../src/index.ts';
import {
  admin,
  clientFor,
  createMerchant,
  payoutInput,
  startTestServer,
  type TestMerchant,
  type TestServer,
} from './support.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

/** A real HTTP peer on a free loopback port. */
async function peer(handler: Handler): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const KEYS = { apiKey: 'K'.repeat(32), secretKey: 'S'.repeat(16) };
const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

const BALANCE = {
  wallet_id: 'WL1',
  balance: '10.00',
  on_hold: '0.00',
  currency: 'INR',
  updated_at: new Date().toISOString(),
};

/** A fake merchant API whose balance route answers with `answers` in turn (then 200 with a balance). */
async function scripted(answers: ((res: ServerResponse) => void)[]) {
  const counts = { token: 0, balance: 0 };
  const p = await peer((req, res) => {
    if (req.url?.startsWith('/v1/auth/client-token')) {
      counts.token++;
      return json(res, 200, {
        respCode: 2000,
        respMessage: 'Token generated',
        data: encryptJson({ token: 'tok' }, 'v2', KEYS),
        expiresIn: 300,
        tokenType: 'Bearer',
      });
    }
    const answer = answers[counts.balance++];
    if (answer) return answer(res);
    return json(res, 200, { resp_code: 2000, resp_message: 'ok', data: encryptJson(BALANCE, 'v2', KEYS) });
  });
  const client = (options: Partial<ConstructorParameters<typeof Payrail>[0]> = {}) =>
    new Payrail({
      baseUrl: p.url,
      ...KEYS,
      retry: { retries: 3, baseDelayMs: 10, maxDelayMs: 50 },
      ...options,
    });
  return { ...p, counts, client };
}

const fail5000 =
  (status = 500) =>
  (res: ServerResponse) =>
    json(res, status, { resp_code: 5000, resp_message: 'Internal server error' });

describe('reads: retries with jittered exponential backoff', () => {
  it('retries 5xx answers and succeeds', async () => {
    const s = await scripted([fail5000(503), fail5000(500), (res) => res.writeHead(502).end('bad gateway')]);
    try {
      const balance = await s.client().wallets.balance('WL1');
      expect(balance.balance).toBe('10.00');
      expect(s.counts).toEqual({ token: 1, balance: 4 });
    } finally {
      await s.close();
    }
  });

  it('gives up after the configured retries with ServerError', async () => {
    const s = await scripted([fail5000(), fail5000(), fail5000(), fail5000(), fail5000()]);
    try {
      const err = await s
        .client({ retry: { retries: 2, baseDelayMs: 5 } })
        .wallets.balance('WL1')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(err).toMatchObject({ code: 5000, httpStatus: 500, operation: 'wallets.balance', retryable: true });
      expect(s.counts.balance).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('honours Retry-After on 429', async () => {
    const limited = (res: ServerResponse) =>
      json(res, 429, { resp_code: 4290, resp_message: 'Rate limit exceeded' }, { 'retry-after': '1' });
    const s = await scripted([limited]);
    try {
      const started = Date.now();
      await s.client().wallets.balance('WL1');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(s.counts.balance).toBe(2);
    } finally {
      await s.close();
    }
  });

  it('throws RateLimitError when Retry-After is longer than the client waits', async () => {
    const limited = (res: ServerResponse) =>
      json(res, 429, { resp_code: 4290, resp_message: 'Rate limit exceeded' }, { 'retry-after': '120' });
    const s = await scripted([limited]);
    try {
      const err = await s
        .client()
        .wallets.balance('WL1')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RateLimitError);
      expect(err).toMatchObject({ code: 4290, httpStatus: 429, retryAfterMs: 120_000 });
      expect(s.counts.balance).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('retries a dropped connection and a request that times out', async () => {
    const s = await scripted([
      (res) => res.socket?.destroy(),
      () => undefined, // never answers: the 1 s timeout ends the attempt
    ]);
    try {
      const balance = await s.client({ timeoutMs: 1_000 }).wallets.balance('WL1');
      expect(balance.walletId).toBe('WL1');
      expect(s.counts.balance).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('reports NetworkError when nothing answers', async () => {
    const s = await scripted([]);
    await s.close();
    const err = await s
      .client({ retry: { retries: 1, baseDelayMs: 5 } })
      .wallets.balance('WL1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', operation: 'token', httpStatus: undefined });
  });

  it('reports an unreadable answer as ServerError', async () => {
    const s = await scripted([
      (res) =>
        json(res, 200, {
          resp_code: 2000,
          resp_message: 'ok',
          data: encryptJson(BALANCE, 'v2', { ...KEYS, secretKey: 'X'.repeat(16) }),
        }),
    ]);
    try {
      const err = await s
        .client()
        .wallets.balance('WL1')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(err).toMatchObject({ code: 'BAD_RESPONSE' });
    } finally {
      await s.close();
    }
  });
});

describe('backoff helpers', () => {
  it('draws full-jitter delays within the exponential ceiling', () => {
    expect(backoffDelay(0, 100, 1_000, () => 1)).toBe(100);
    expect(backoffDelay(3, 100, 1_000, () => 1)).toBe(800);
    expect(backoffDelay(10, 100, 1_000, () => 1)).toBe(1_000);
    expect(backoffDelay(5, 100, 1_000, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3_000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now)).toBe(5_000);
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it('keeps a shared budget of requests per window', async () => {
    const budget = new RequestBudget(3, 300);
    const started = Date.now();
    await Promise.all(Array.from({ length: 6 }, () => budget.acquire()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe('initiation: retried only with the same senderId, never twice', () => {
  let t: TestServer;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await startTestServer('pglite');
    m = await createMerchant(t.url, 'Retries', '1000.00');
  });
  afterAll(() => t?.close());

  type Plan = 'forward' | 'lose-answer' | 'bad-gateway';
  /** A proxy to the real server that can lose the answer of a request that was carried out. */
  async function proxy(plan: (n: number) => Plan) {
    let initiations = 0;
    const p = await peer(async (req, res, body) => {
      const isInitiate = req.url === '/payout/v1/initiate';
      const step: Plan = isInitiate ? plan(++initiations) : 'forward';
      if (step === 'bad-gateway') return json(res, 502, { error: 'upstream unavailable' });
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers['content-length'];
      const upstream = await fetch(t.url + req.url, {
        method: req.method,
        headers,
        body: req.method === 'GET' ? undefined : body,
      });
      const text = await upstream.text();
      if (step === 'lose-answer') return void res.socket?.destroy();
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
    });
    return { ...p, count: () => initiations };
  }

  async function payoutsOf(senderId: string) {
    const page = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${m.merchant_id}&limit=200`);
    return (page.body.data as { sender_id: string }[]).filter((p) => p.sender_id === senderId);
  }

  it('returns the payout created by an attempt whose answer was lost (4009 on the retry)', async () => {
    const p = await proxy((n) => (n === 1 ? 'lose-answer' : 'forward'));
    try {
      const before = await clientFor(t.url, m).wallets.balance(m.wallet_id);
      const input = payoutInput(m.wallet_id, { amount: '10.00' });
      const payout = await clientFor(p.url, m).payouts.initiate(input);
      expect(payout).toMatchObject({ senderId: input.senderId, amount: '10.00' });
      expect(p.count()).toBe(2);
      expect(await payoutsOf(input.senderId)).toHaveLength(1);
      const after = await clientFor(t.url, m).wallets.balance(m.wallet_id);
      expect(Number(before.balance) - Number(after.balance)).toBeCloseTo(10, 2);
    } finally {
      await p.close();
    }
  });

  it('retries a 5xx answer and creates the payout once', async () => {
    const p = await proxy((n) => (n < 3 ? 'bad-gateway' : 'forward'));
    try {
      const input = payoutInput(m.wallet_id, { amount: '1.00' });
      const payout = await clientFor(p.url, m).payouts.initiate(input);
      expect(payout.status).toBe('INITIATED');
      expect(p.count()).toBe(3);
      expect(await payoutsOf(input.senderId)).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  it('does not retry a refusal, nor "bank down"', async () => {
    const p = await proxy(() => 'forward');
    try {
      const payrail = clientFor(p.url, m);
      await expect(payrail.payouts.initiate(payoutInput(m.wallet_id, { amount: '99999.00' }))).rejects.toBeInstanceOf(
        InsufficientFundsError,
      );
      expect(p.count()).toBe(1);
      const down = payoutInput(m.wallet_id, {
        beneficiary: { name: 'Asha Rao', accountNumber: '100000000001', ifsc: 'DOWN0000001' },
      });
      await expect(payrail.payouts.initiate(down)).rejects.toBeInstanceOf(BankUnavailableError);
      expect(p.count()).toBe(2);
    } finally {
      await p.close();
    }
  });
});

describe('errors say what failed', () => {
  it('a NetworkError names the method and URL it could not reach (no query)', async () => {
    const port = await freePort(); // nothing listens there
    const refused = await new Payrail({
      baseUrl: `http://127.0.0.1:${port}/api`,
      ...KEYS,
      retry: { retries: 0 },
    }).wallets
      .balance('WL1')
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NetworkError);
    expect((refused as NetworkError).message).toBe(
      `POST http://127.0.0.1:${port}/api/v1/auth/client-token: fetch failed: ECONNREFUSED`,
    );
    // fetch refuses a URL with credentials, naming them: the client refuses it when made, without them.
    const withPassword = (() => {
      try {
        return new Payrail({ baseUrl: `http://user:pass-word@127.0.0.1:${port}`, ...KEYS });
      } catch (e) {
        return e;
      }
    })();
    expect(withPassword).toBeInstanceOf(ConfigurationError);
    expect((withPassword as Error).message).not.toContain('pass-word');

    // A status read is a GET with a query: the message names the route, not the looked-up references.
    const s = await scripted([(res) => res.socket?.destroy()]);
    try {
      const cut = await s
        .client({ retry: { retries: 0 } })
        .payouts.get({ senderId: 'invoice-secret-1001' })
        .catch((e: unknown) => e);
      expect(cut).toBeInstanceOf(NetworkError);
      expect((cut as NetworkError).message).toMatch(new RegExp(`^GET ${s.url}/payout/v1/status: fetch failed`));
      expect((cut as NetworkError).message).not.toContain('invoice-secret-1001');
    } finally {
      await s.close();
    }
  });

  it('4014 follows the message and the route: bank down is BankUnavailableError, undecryptable DecryptionError', () => {
    const classify = (family: 'payout' | 'collection', httpStatus: number, message: string) =>
      toError({ family, operation: 'payouts.initiate', httpStatus, code: 4014, message });
    const cases = [
      // The server's own pairs (packages/protocol codes.ts).
      [classify('payout', 503, 'Bank down for maintenance'), BankUnavailableError],
      [classify('payout', 400, 'Payload could not be decrypted'), DecryptionError],
      [classify('collection', 400, 'Payload could not be decrypted'), DecryptionError],
      // A proxy that rewrote the status: the message decides.
      [classify('payout', 502, 'Payload could not be decrypted'), DecryptionError],
      [classify('payout', 400, 'Bank down for maintenance'), BankUnavailableError],
      // No telling message: the status decides on payouts; collections have no bank to be down.
      [classify('payout', 503, ''), BankUnavailableError],
      [classify('payout', 400, 'Invalid item: not a JSON object'), DecryptionError],
      [classify('collection', 503, ''), DecryptionError],
    ] as const;
    for (const [err, cls] of cases) {
      expect(err).toBeInstanceOf(cls);
      expect(err.retryable).toBe(cls === BankUnavailableError);
    }
    expect(classify('payout', 400, 'Payload could not be decrypted')).toBeInstanceOf(ValidationError);
  });
});
