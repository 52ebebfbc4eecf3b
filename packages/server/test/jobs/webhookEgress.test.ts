import dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { newId } from '../../src/domain/ids.ts';
import { MAX_ANSWER_BYTES, postWebhook } from '../../src/jobs/postWebhook.ts';
import { WebhookDispatcher } from '../../src/jobs/WebhookDispatcher.ts';
import { createLogger } from '../../src/logger.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { CallbackPolicy, type ResolvedAddress, type Resolver } from '../../src/services/CallbackPolicy.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { WebhookRepository } from '../../src/store/repositories/WebhookRepository.ts';
import { testDatabases } from '../support/testDatabase.ts';
import { WebhookReceiver } from '../support/webhookReceiver.ts';

const PUBLIC: ResolvedAddress = { address: '203.0.113.7', family: 4 };
const LOOPBACK: ResolvedAddress = { address: '127.0.0.1', family: 4 };

/**
 * A rebinding DNS server: the first question gets a public address, every later one 127.0.0.1. It answers
 * through the resolver injected into the policy AND through the process's own resolver (`dns.lookup`, which
 * `fetch` and `net.connect` use), so any second lookup, wherever it happens, gets the loopback answer.
 */
function rebindingDns() {
  let questions = 0;
  const answer = (): ResolvedAddress => (questions++ === 0 ? PUBLIC : LOOPBACK);
  const resolver: Resolver = async () => [answer()];
  const original = { lookup: dns.lookup, promisesLookup: dns.promises.lookup };
  type Callback = (err: Error | null, address: unknown, family?: number) => void;
  const fakeLookup = (_host: string, options: unknown, callback?: Callback) => {
    const cb = (typeof options === 'function' ? options : callback) as Callback;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    const a = answer();
    process.nextTick(() => (all ? cb(null, [a]) : cb(null, a.address, a.family)));
  };
  (dns as { lookup: unknown }).lookup = fakeLookup;
  (dns.promises as { lookup: unknown }).lookup = async (_host: string, options?: { all?: boolean }) => {
    const a = answer();
    return options?.all ? [a] : a;
  };
  syncBuiltinESMExports();
  return {
    resolver,
    questions: () => questions,
    restore() {
      (dns as { lookup: unknown }).lookup = original.lookup;
      (dns.promises as { lookup: unknown }).lookup = original.promisesLookup;
      syncBuiltinESMExports();
    },
  };
}

describe('webhook egress', () => {
  const dbs = testDatabases('pglite');
  let db: Database;
  let merchantId: string;
  let receiver: WebhookReceiver;
  let n = 0;
  let restoreDns: (() => void) | null = null;

  beforeAll(async () => {
    db = (await dbs.fresh()).db;
    await migrate(db);
    merchantId = (await new MerchantService(db, systemClock).create('Egress Test')).merchant.id;
    receiver = await new WebhookReceiver().start();
  });
  afterEach(() => {
    restoreDns?.();
    restoreDns = null;
  });
  afterAll(async () => {
    await receiver.stop();
    await dbs.closeAll();
  });

  const dispatcherWith = (policy: CallbackPolicy, timeoutMs: number) =>
    new WebhookDispatcher(db, policy, new Metrics(), createLogger('silent'), {
      retryScheduleMs: [0, 0],
      timeoutMs,
      clock: systemClock,
    });

  async function enqueue(url: string): Promise<string> {
    const id = newId('event', Date.now());
    await WebhookRepository.insert(db, {
      id,
      merchantId,
      subjectId: newId('payout', Date.now()),
      type: 'payout.processing',
      url,
      scheme: 'v2',
      snapshot: JSON.stringify({ transaction_id: 'x', status: 'PROCESSING' }),
      createdAt: new Date(),
    });
    return id;
  }

  /** Claims the delivery and runs one attempt, as the worker does. */
  async function attempt(dispatcher: WebhookDispatcher, id: string) {
    const claimed = (await WebhookRepository.claim(db, 100, 60_000)).find((d) => d.id === id);
    expect(claimed, 'claimed').toBeDefined();
    if (claimed) await dispatcher.deliver(claimed);
    return (await WebhookRepository.attempts(db, [id])).get(id) ?? [];
  }

  it('a host that rebinds to 127.0.0.1 after the check never reaches the loopback receiver (live mode)', async () => {
    const fake = rebindingDns();
    restoreDns = fake.restore;
    const policy = new CallbackPolicy(false, { resolver: fake.resolver, dnsTimeoutMs: 200 });
    const dispatcher = dispatcherWith(policy, 400);
    const port = Number(new URL(receiver.url).port);
    const path = `/rebind/${n++}`;
    const id = await enqueue(`http://rebind.example:${port}${path}`);

    const first = await attempt(dispatcher, id);
    expect(receiver.at(path)).toHaveLength(0);
    expect(first).toEqual([expect.objectContaining({ httpStatus: null })]);
    const second = await attempt(dispatcher, id);
    expect(receiver.at(path)).toHaveLength(0);
    expect(second).toHaveLength(2);
    // The second attempt resolved to loopback only: refused before any connection.
    expect(second[1]?.error).toMatch(/private address/);
    expect(second.every((a) => a.httpStatus === null)).toBe(true);
  });

  it('does not follow a redirect: a 3xx is a failed attempt and the target is never called', async () => {
    const path = `/redirect/${n++}`;
    // A receiver that redirects to another (the loopback receiver): the webhook must stop at the 302.
    const redirector = await listen((req, res) => {
      res.writeHead(302, { location: `${receiver.url}/redirect-target` }).end();
      req.resume();
    });
    try {
      const id = await enqueue(`${redirector.url}${path}`);
      const attempts = await attempt(dispatcherWith(new CallbackPolicy(true), 2000), id);
      expect(attempts).toEqual([expect.objectContaining({ httpStatus: 302, error: 'HTTP 302' })]);
      expect(receiver.at('/redirect-target')).toHaveLength(0);
      expect((await WebhookRepository.findById(db, id))?.state).toBe('pending');
    } finally {
      await redirector.close();
    }
  });

  it('a DNS lookup that hangs ends at its own time limit, well inside the delivery timeout', async () => {
    const hanging: Resolver = () => new Promise(() => {});
    const dispatcher = dispatcherWith(new CallbackPolicy(false, { resolver: hanging, dnsTimeoutMs: 150 }), 5000);
    const id = await enqueue(`http://slow-dns.example/${n++}`);
    const started = Date.now();
    const attempts = await attempt(dispatcher, id);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(attempts).toEqual([expect.objectContaining({ httpStatus: null })]);
    expect(attempts[0]?.error).toMatch(/DNS lookup took longer than 150 ms/);
  });

  it('reads at most 64 KiB of an answer that streams megabytes, and records the attempt', async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    let closed: () => void = () => {};
    const done = new Promise<void>((resolve) => (closed = resolve));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const flood = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => closed());
      pump();
    });
    try {
      const heapBefore = process.memoryUsage();
      const id = await enqueue(`${flood.url}/flood`);
      const attempts = await attempt(dispatcherWith(new CallbackPolicy(true), 5000), id);
      await done;
      const heapAfter = process.memoryUsage();
      expect(attempts).toEqual([expect.objectContaining({ httpStatus: 200, error: null })]);
      expect((await WebhookRepository.findById(db, id))?.state).toBe('delivered');
      // The receiver could push no more than what the kernel buffers while we hung up: far from 64 MB.
      expect(written).toBeLessThan(16 * 1024 * 1024);
      expect(heapAfter.arrayBuffers - heapBefore.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await flood.close();
    }
  });

  it('postWebhook counts at most MAX_ANSWER_BYTES and connects only to the addresses it is given', async () => {
    const big = await listen((req, res) => {
      req.resume();
      res.writeHead(200).end(Buffer.alloc(MAX_ANSWER_BYTES * 4, 'y'));
    });
    try {
      const url = new URL(`${big.url.replace('127.0.0.1', 'pinned.example')}/x`);
      const result = await postWebhook(url, {}, '{}', {
        addresses: [LOOPBACK],
        signal: AbortSignal.timeout(2000),
      });
      expect(result).toEqual({ status: 200, bytesRead: MAX_ANSWER_BYTES });
    } finally {
      await big.close();
    }
  });
});

async function listen(handler: Parameters<typeof createServer>[1]) {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
