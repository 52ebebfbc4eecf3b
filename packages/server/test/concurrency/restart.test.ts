import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decryptJsonObject, verifyWebhook, type PayoutStatus, type Scheme } from '@payrail/protocol';
import { describe, it, type ExpectStatic } from 'vitest';
import { http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { createTestSchema } from '../support/testServer.ts';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../support/webhookReceiver.ts';

/**
 * Crash recovery (ARCHITECTURE.md, "Outbox"): the real server runs as a child process; payouts are caught in every
 * non-final state with their webhooks undelivered, the process is killed with SIGKILL, and a new process on the
 * same data must finish every acknowledged payout, move no money twice and deliver every event.
 */

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ADMIN_TOKEN = 'restart-test-admin';
const STEP_MS = 1500;

interface Child {
  process: ChildProcess;
  url: string;
  output: string[];
}

async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** The server from its sources through tsx, resolved once /healthz answers. */
async function startServer(env: Record<string, string>): Promise<Child> {
  const port = await freePort();
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAYRAIL_') && !['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST'].includes(k)) base[k] = v;
  }
  const child = spawn(
    process.execPath,
    ['--conditions=@payrail/source', '--import', 'tsx', 'packages/server/src/main.ts'],
    {
      cwd: REPO_ROOT,
      env: {
        ...base,
        PORT: String(port),
        HOST: '127.0.0.1',
        PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
        PAYRAIL_SANDBOX_STEP_MS: String(STEP_MS),
        PAYRAIL_WORKER_POLL_MS: '50',
        // Long enough that nothing gives up while the receiver refuses (a delivery whose schedule runs out is
        // `failed` for good, and only an operator replay sends it again).
        PAYRAIL_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 100 }, () => '200ms').join(','),
        PAYRAIL_WEBHOOK_TIMEOUT_MS: '2000',
        // What the killed process had claimed is reserved for this long before the new one takes it over.
        PAYRAIL_WORKER_LEASE_MS: '2000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.once('exit', () => (exited = true));
  const started = Date.now();
  try {
    await eventually(
      async () => {
        if (exited) throw new Error('server exited during start');
        const res = await fetch(`${url}/healthz`).catch(() => null);
        return res?.status === 200;
      },
      60_000,
      100,
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message} after ${Date.now() - started} ms; output: ${output.join('')}`, {
      cause: err,
    });
  }
  return { process: child, url, output };
}

async function killHard(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.kill('SIGKILL');
  await exited;
}

const adminCall = (url: string, method: string, path: string, body?: unknown) =>
  http(url, method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

interface AdminPayout {
  transaction_id: string;
  sender_id: string;
  status: PayoutStatus;
  amount: string;
}

async function payoutsOf(url: string, merchantId: string): Promise<AdminPayout[]> {
  const res = await adminCall(url, 'GET', `/admin/v1/payouts?merchant_id=${merchantId}&limit=200`);
  if (res.status !== 200) throw new Error(`payout list failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as AdminPayout[];
}

const rupees = (p: bigint) => `${p / 100n}.${String(p % 100n).padStart(2, '0')}`;

type Kind = 'success' | 'failure' | 'pending';
const ACCOUNTS: Record<Kind, string> = { success: '100000000001', failure: '100000000002', pending: '100000000003' };

interface Acknowledged {
  id: string;
  senderId: string;
  kind: Kind;
  amount: bigint;
  scheme: Scheme;
  /** How an operator settles it (PENDING ones only). */
  resolveAs?: 'SUCCESS' | 'FAILED';
}

const STATUS_OF: Record<string, PayoutStatus> = {
  'payout.processing': 'PROCESSING',
  'payout.pending': 'PENDING',
  'payout.success': 'SUCCESS',
  'payout.failed': 'FAILED',
  'payout.refunded': 'REFUNDED',
};

/** The events a payout must produce on its way to its final state, in order. */
function expectedEvents(p: Acknowledged): string[] {
  if (p.kind === 'success') return ['payout.processing', 'payout.success'];
  if (p.kind === 'failure') return ['payout.processing', 'payout.failed', 'payout.refunded'];
  return p.resolveAs === 'SUCCESS'
    ? ['payout.processing', 'payout.pending', 'payout.success']
    : ['payout.processing', 'payout.pending', 'payout.failed', 'payout.refunded'];
}

interface Storage {
  env: Record<string, string>;
  drop?: () => Promise<void>;
}

/** Expectations go through the test's own `expect`: the two engines' tests run at the same time. */
type Expect = ExpectStatic;

/**
 * One engine's crash test. The receiver refuses every webhook (500) until the kill, so each event is still owed
 * then; after the restart it accepts them.
 */
async function crashAndRecover(expect: Expect, storage: Storage): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'payrail-restart-'));
  const receiver = await new WebhookReceiver().start();
  /** webhook-ids the receiver answered 2xx. */
  const accepted = new Set<string>();
  let refusing = true;
  receiver.respond = (hook: ReceivedWebhook) => {
    if (refusing) return 500;
    accepted.add(String(hook.headers['webhook-id']));
    return 200;
  };
  let child: Child | undefined;
  try {
    const processEnv = { ...storage.env, PAYRAIL_DATA_DIR: dataDir };
    child = await startServer(processEnv);
    const url = child.url;

    const created = await adminCall(url, 'POST', '/admin/v1/merchants', { name: 'Restart Merchant' });
    expect(created.status).toBe(201);
    const m = created.body as unknown as TestMerchant;
    const credit = 100_000_00n;
    const credited = await adminCall(url, 'POST', `/admin/v1/wallets/${m.wallet_id}/credits`, {
      amount: rupees(credit),
    });
    expect(credited.status).toBe(200);
    const clients = {
      v2: await MerchantClient.connect(url, m, 'v2'),
      v1: await MerchantClient.connect(url, m, 'v1'),
    };

    const acknowledged: Acknowledged[] = [];
    let n = 0;
    const initiate = async (kind: Kind, count: number) => {
      await Promise.all(
        Array.from({ length: count }, async () => {
          const i = n++;
          const senderId = `rs-${kind}-${i}-${randomBytes(3).toString('hex')}`;
          const amount = BigInt(1000 + i * 137); // distinct amounts, so a double debit cannot hide in a sum
          const scheme = i % 2 ? 'v1' : 'v2';
          const res = await clients[scheme].post('/payout/v1/initiate', {
            sender_id: senderId,
            wallet_id: m.wallet_id,
            amount: rupees(amount),
            payment_mode: i % 3 === 0 ? 'NEFT' : 'IMPS',
            beneficiary: {
              beneficiary_name: 'Restart Test',
              beneficiary_ifsc: 'SBOX0000001',
              beneficiary_acc_number: ACCOUNTS[kind],
            },
            callback_url: `${receiver.url}/hooks/${senderId}`,
          });
          expect(res.body.resp_code).toBe(2000);
          acknowledged.push({ id: String(res.data?.transaction_id), senderId, kind, amount, scheme });
        }),
      );
    };
    // A pipeline of small batches (one payout of each outcome) started every half step: after about two steps
    // every non-final state exists at once, INITIATED (the newest batch), PROCESSING, PENDING and FAILED with its
    // refund still to come. The process is killed right after a snapshot shows all four. Waiting on observed
    // states rather than a clock keeps this stable on a slow machine.
    const wanted: PayoutStatus[] = ['INITIATED', 'PROCESSING', 'PENDING', 'FAILED'];
    let before: AdminPayout[] = [];
    for (let batch = 0; ; batch++) {
      await Promise.all([initiate('failure', 1), initiate('pending', 1), initiate('success', 1)]);
      before = await payoutsOf(url, m.merchant_id);
      const states = new Set(before.map((p) => p.status));
      if (wanted.every((s) => states.has(s))) break;
      if (batch >= 12) throw new Error(`never saw every non-final state at once: ${[...states].join(', ')}`);
      await new Promise((r) => setTimeout(r, STEP_MS / 2));
    }
    await killHard(child);

    // The last snapshot saw every acknowledged payout, and every webhook was still owed at the kill.
    expect(before.map((p) => p.transaction_id).sort()).toEqual(acknowledged.map((p) => p.id).sort());
    expect(accepted.size).toBe(0);
    expect(receiver.received.length).toBeGreaterThan(0);

    refusing = false;
    child = await startServer(processEnv);
    const url2 = child.url;

    // Every acknowledged payout survived.
    const after = await payoutsOf(url2, m.merchant_id);
    expect(new Set(after.map((p) => p.transaction_id))).toEqual(new Set(acknowledged.map((p) => p.id)));

    // The operator settles the PENDING ones (all PENDING by now): half succeed, half fail and are refunded.
    await eventually(async () => {
      const now = new Map((await payoutsOf(url2, m.merchant_id)).map((p) => [p.transaction_id, p.status]));
      return acknowledged.every((p) => p.kind !== 'pending' || now.get(p.id) === 'PENDING');
    }, 4 * STEP_MS);
    const pending = acknowledged.filter((p) => p.kind === 'pending');
    for (const [i, p] of pending.entries()) {
      p.resolveAs = i % 2 ? 'FAILED' : 'SUCCESS';
      const res = await adminCall(url2, 'POST', `/admin/v1/payouts/${p.id}/resolve`, { status: p.resolveAs });
      expect(res.status).toBe(200);
    }

    const finalOf = (p: Acknowledged): PayoutStatus =>
      p.kind === 'success' || p.resolveAs === 'SUCCESS' ? 'SUCCESS' : 'REFUNDED';
    await eventually(
      async () => {
        const now = new Map((await payoutsOf(url2, m.merchant_id)).map((p) => [p.transaction_id, p.status]));
        return acknowledged.every((p) => now.get(p.id) === finalOf(p));
      },
      20_000,
      100,
    );

    // Money moved once: the balance is the credit less the payouts that succeeded, and the ledger agrees.
    const spent = acknowledged.filter((p) => finalOf(p) === 'SUCCESS').reduce((sum, p) => sum + p.amount, 0n);
    // A token of the killed process is still good: the signing key lives in the database.
    const session = new MerchantClient(url2, m, 'v2');
    session.token = clients.v2.token;
    const balance = await session.get(`/payout/v1/balance?wallet_id=${m.wallet_id}`);
    expect(balance.body.resp_code).toBe(2000);
    expect(balance.data).toMatchObject({ balance: rupees(credit - spent), on_hold: '0.00' });
    const verify = await adminCall(url2, 'GET', '/admin/v1/ledger/verify');
    expect(verify.body).toMatchObject({ ok: true, mismatches: [] });

    // Every status change is delivered: each event at least once, each payout's in the order they happened.
    const expectedCount = acknowledged.reduce((sum, p) => sum + expectedEvents(p).length, 0);
    const deliveries = await eventually(
      async () => {
        const res = await adminCall(
          url2,
          'GET',
          `/admin/v1/webhooks/deliveries?merchant_id=${m.merchant_id}&limit=200`,
        );
        const rows = res.body.data as { id: string; state: string }[];
        return rows.length === expectedCount && rows.every((d) => d.state === 'delivered') ? rows : null;
      },
      20_000,
      100,
    );
    for (const d of deliveries ?? []) expect(accepted.has(d.id), `delivery ${d.id} accepted`).toBe(true);

    for (const p of acknowledged) {
      const firstSeen: string[] = [];
      const types: string[] = [];
      for (const hook of receiver.at(`/hooks/${p.senderId}`)) {
        const event = verifyWebhook(m.webhook_secret, hook.body, hook.headers) as {
          id: string;
          type: string;
          data: string;
        };
        if (firstSeen.includes(event.id)) continue;
        firstSeen.push(event.id);
        types.push(event.type);
        // data is the payout as it was at that event, encrypted with the scheme that created it.
        const data = decryptJsonObject(event.data, p.scheme, { apiKey: m.api_key, secretKey: m.secret_key });
        expect(data).toMatchObject({ transaction_id: p.id, sender_id: p.senderId, status: STATUS_OF[event.type] });
      }
      expect(types, `events of ${p.kind} payout ${p.id}`).toEqual(expectedEvents(p));
      expect(firstSeen.every((id) => accepted.has(id))).toBe(true);
    }
  } finally {
    if (child) await killHard(child);
    await receiver.stop();
    await rm(dataDir, { recursive: true, force: true });
    await storage.drop?.();
  }
}

// The two engines run side by side: most of each test is waiting on sandbox steps and process start-up.
describe.concurrent('restart after kill -9', () => {
  it('on PGlite: finishes every acknowledged payout once and delivers every event', async ({ expect }) => {
    await crashAndRecover(expect, { env: {} });
  }, 120_000);

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    'on PostgreSQL: finishes every acknowledged payout once and delivers every event',
    async ({ expect }) => {
      // A schema of its own, selected through the connection string (libpq `options`), as an operator could.
      const { schema, drop } = await createTestSchema();
      const url = new URL(process.env.TEST_DATABASE_URL as string);
      url.searchParams.set('options', `-c search_path=${schema}`);
      await crashAndRecover(expect, { env: { DATABASE_URL: url.toString() }, drop });
    },
    120_000,
  );
});
