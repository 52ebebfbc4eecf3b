import { CollectionCodes, Common, encryptJson, PayoutCodes, TokenCodes, type CodeDef } from '@payrail/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import type { Database } from '../../src/store/Database.ts';
import { initiateOk, party as collectionParty, type Party } from '../support/collectionFixtures.ts';
import { admin, http, type HttpResult, type TestMerchant } from '../support/merchantClient.ts';
import { fundedMerchant, payoutRequest, type Funded } from '../support/payoutFixtures.ts';
import { hostileQuery, hostileSegment, hostileText, hostileValue, mutated } from '../support/hostile.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

/**
 * Property-based fuzzing of every merchant and admin route (issue 10): hostile types, lengths, numbers and
 * Unicode in bodies (encrypted for the session's scheme, so that they reach the validators), query strings and
 * path parameters. Properties: no answer is 5000 or HTTP 500; every answer is a documented code with its HTTP
 * status; a refused request changes nothing in the database. FUZZ_RUNS raises the number of runs per property.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 15);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const fcOptions = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: false };

type Family = 'payout' | 'collection' | 'token' | 'admin';

/** Hostile values that have a JSON text to encrypt (fc.anything also yields `undefined`, which has none). */
const encryptable = hostileValue.filter((v) => JSON.stringify(v) !== undefined);

const PSP_SECRET = 'fuzz-psp-notify-secret-0123456789abcdef';

const documented = (defs: Record<string, CodeDef>[]) =>
  new Set(defs.flatMap((d) => Object.values(d)).map((d) => `${d.http}/${d.code}`));
const COMMON = { ...Common } as Record<string, CodeDef>;
delete COMMON.internal;
delete COMMON.unavailable;
const DOCUMENTED: Record<Exclude<Family, 'admin'>, Set<string>> = {
  payout: documented([PayoutCodes, COMMON]),
  collection: documented([CollectionCodes, COMMON]),
  token: documented([TokenCodes, COMMON]),
};
const ADMIN_STATUSES = new Set([200, 201, 202, 400, 401, 404, 409, 413, 414, 422, 429]);

/** A route answer outside the application (unknown route, malformed path): the plain error shape. */
function isFrameworkAnswer(res: HttpResult): boolean {
  const error = res.body.error as { code?: unknown } | undefined;
  // Node's own limit on the request line and headers (16 KiB) answers 431 before any route runs.
  if (res.status === 431) return true;
  return (
    [400, 404, 414].includes(res.status) &&
    ['route_not_found', 'invalid_request', 'uri_too_long'].includes(String(error?.code))
  );
}

function expectDocumented(family: Family, res: HttpResult, label: string) {
  const detail = `${label.slice(0, 300)} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
  expect(res.status, detail).not.toBe(500);
  expect(res.status, detail).toBeLessThan(500);
  if (isFrameworkAnswer(res)) return;
  if (family === 'admin') {
    expect(ADMIN_STATUSES.has(res.status), detail).toBe(true);
    if (res.status >= 400)
      expect(res.body, detail).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
    return;
  }
  const code = family === 'payout' ? res.body.resp_code : res.body.respCode;
  expect(DOCUMENTED[family].has(`${res.status}/${code}`), detail).toBe(true);
}

const accepted = (family: Family, res: HttpResult) =>
  family === 'admin' ? res.status < 300 : (family === 'payout' ? res.body.resp_code : res.body.respCode) === 2000;

/**
 * One fingerprint per table of the schema (row count and an md5 of every row's text, so bigints compare exactly):
 * new tables of other features are covered without listing them here. The audit log is left out: recording
 * every operator request, refused ones included, is its job.
 */
async function snapshot(db: Database): Promise<Record<string, string>> {
  const tables = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
        AND table_name NOT IN ('schema_migrations', 'audit_log')
      ORDER BY table_name`,
  );
  const sql = tables.rows
    .map(
      ({ name }) =>
        `SELECT '${name}' AS t, count(*)::text || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') AS h FROM "${name}" x`,
    )
    .join(' UNION ALL ');
  const { rows } = await db.query<{ t: string; h: string }>(sql);
  return Object.fromEntries(rows.map((r) => [r.t, r.h]));
}

describe.each(ENGINES)('fuzzing every route on %s', (engine) => {
  let t: TestServer;
  let payV1: Funded;
  let payV2: Funded;
  let colV1: Party;
  let colV2: Party;
  /** A merchant the admin fuzz may patch, suspend and credit without disturbing the merchant sessions. */
  let victim: TestMerchant;
  let txnIds: string[];
  let payoutIds: string[];
  let deliveryIds: string[];
  const adminAuth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

  beforeAll(async () => {
    t = await startTestServer(engine, {
      env: {
        // Nothing moves in the background while the tables are compared: payouts stay INITIATED.
        PAYRAIL_SANDBOX_STEP_MS: '3600000',
        PAYRAIL_TOKEN_FAILURES_PER_KEY: '1000000',
        PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '1000000',
        PAYRAIL_RATE_LIMIT_PER_MINUTE: '1000000',
        PAYRAIL_PSP_NOTIFY_SECRET: PSP_SECRET,
      },
    });
    [payV1, payV2, colV1, colV2] = await Promise.all([
      fundedMerchant(t.url, 'v1', '1000000.00'),
      fundedMerchant(t.url, 'v2', '1000000.00'),
      collectionParty(t.url, 'v1'),
      collectionParty(t.url, 'v2'),
    ]);
    const created = await admin(t.url, 'POST', '/admin/v1/merchants', { name: 'Fuzz victim' });
    victim = created.body as unknown as TestMerchant;
    txnIds = [(await initiateOk(colV1.client)).txnId, (await initiateOk(colV2.client)).txnId];
    const payout = await payV2.client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', { wallet_id: payV2.merchant.wallet_id }),
    );
    payoutIds = [payout.data?.transaction_id as string];
    deliveryIds = ['1', '0', '9223372036854775807'];
  }, 120_000);
  afterAll(() => t?.close());

  /** Sends one request; asserts the answer is documented, and that a refusal changed no table. */
  async function probe(family: Family, label: string, send: () => Promise<HttpResult>): Promise<HttpResult> {
    const before = await snapshot(t.db);
    const res = await send();
    expectDocumented(family, res, label);
    if (!accepted(family, res))
      expect(await snapshot(t.db), `${label.slice(0, 300)} refused but changed the database`).toEqual(before);
    return res;
  }

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    http(t.url, 'POST', path, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    });

  const run = (property: fc.IAsyncProperty<[unknown]> | fc.IAsyncPropertyWithHooks<unknown[]>) =>
    fc.assert(property as fc.IAsyncProperty<unknown[]>, fcOptions);

  describe('merchant routes', () => {
    it('V2 token: any body', async () => {
      const body = fc.oneof(
        fc.record({ apiKey: hostileValue, secretKey: hostileValue }, { requiredKeys: [] }),
        fc.constantFrom('right key, wrong secret', 'wrong key, right secret').map((kind) => ({
          apiKey: kind.startsWith('right') ? payV2.merchant.api_key : `${payV2.merchant.api_key}x`,
          secretKey: kind.startsWith('right') ? 'x' : payV2.merchant.secret_key,
        })),
        hostileValue,
      );
      await run(
        fc.asyncProperty(body, (b) =>
          probe('token', `V2 token ${JSON.stringify(b)?.slice(0, 200)}`, () => post('/v1/auth/client-token', b)).then(
            () => undefined,
          ),
        ),
      );
    });

    it('V1 token: encrypted hostile credentials, garbage payloads, any X-Api-Key', async () => {
      const keys = { apiKey: payV1.merchant.api_key, secretKey: payV1.merchant.secret_key };
      const payload = fc.oneof(
        fc
          .record({ apiKey: hostileValue, secretKey: hostileValue }, { requiredKeys: [] })
          .map((p) => encryptJson(p, 'v1', keys)),
        encryptable.map((p) => encryptJson(p, 'v1', keys)),
        hostileValue,
      );
      const header = fc.oneof(
        fc.constant(undefined),
        fc.constant(keys.apiKey),
        fc.stringMatching(/^[\x21-\x7e]{0,200}$/),
      );
      await run(
        fc.asyncProperty(fc.record({ payload }, { requiredKeys: [] }), header, async (body, apiKey) => {
          await probe('token', `V1 token ${String(JSON.stringify(body)).slice(0, 200)} key=${apiKey}`, () =>
            post('/v1/auth/clients/token', body, apiKey === undefined ? {} : { 'x-api-key': apiKey }),
          );
        }),
      );
    });

    const PAYOUT_FIELDS = [
      'sender_id',
      'wallet_id',
      'payment_mode',
      'amount',
      'beneficiary',
      'beneficiary_name',
      'beneficiary_ifsc',
      'beneficiary_acc_number',
      'remarks',
      'callback_url',
    ];
    for (const scheme of ['v1', 'v2'] as const) {
      for (const shape of ['nested', 'flat'] as const) {
        it(`payout initiate, ${scheme}, ${shape}: hostile fields (encrypted) and garbage payloads`, async () => {
          const party = scheme === 'v1' ? payV1 : payV2;
          const beneficiaryOver = fc.dictionary(
            fc.constantFrom('beneficiary_name', 'beneficiary_ifsc', 'beneficiary_acc_number'),
            hostileValue,
            { maxKeys: 2 },
          );
          const request = fc.oneof(
            {
              weight: 6,
              arbitrary: fc.tuple(mutated(PAYOUT_FIELDS), beneficiaryOver).map(([over, benOver]) => {
                const plain = payoutRequest(shape, { wallet_id: party.merchant.wallet_id }, over);
                if (
                  shape === 'nested' &&
                  plain.beneficiary &&
                  typeof plain.beneficiary === 'object' &&
                  !Array.isArray(plain.beneficiary)
                ) {
                  plain.beneficiary = { ...(plain.beneficiary as object), ...benOver };
                }
                return { payload: party.client.encrypt(plain) };
              }),
            },
            { weight: 1, arbitrary: encryptable.map((v) => ({ payload: party.client.encrypt(v) })) },
            { weight: 1, arbitrary: fc.record({ payload: hostileValue }, { requiredKeys: [] }) },
            { weight: 1, arbitrary: hostileValue },
          );
          await run(
            fc.asyncProperty(request, async (body) => {
              await probe('payout', `initiate ${scheme} ${shape} ${String(JSON.stringify(body)).slice(0, 120)}`, () =>
                post('/payout/v1/initiate', body, party.client.auth()),
              );
            }),
          );
        });
      }
    }

    it('payout status and balance: hostile query strings, both schemes', async () => {
      await run(
        fc.asyncProperty(
          fc.constantFrom('v1', 'v2'),
          fc.constantFrom('/payout/v1/status', '/payout/v1/balance'),
          hostileQuery(['transaction_id', 'sender_id', 'wallet_id']),
          async (scheme, path, query) => {
            const client = (scheme === 'v1' ? payV1 : payV2).client;
            await probe('payout', `GET ${path}${query}`, () =>
              http(t.url, 'GET', `${path}${query}`, { headers: client.auth() }),
            );
          },
        ),
      );
    });

    const COLLECTION_FIELDS = [
      'senderId',
      'requestAmount',
      'amount',
      'vpa',
      'txnType',
      'channel',
      'remarks',
      'callbackUrl',
      'walletId',
      'payerVpa',
    ];
    for (const scheme of ['v1', 'v2'] as const) {
      it(`collection initiate, ${scheme}: hostile fields (encrypted) and garbage payloads`, async () => {
        const party = scheme === 'v1' ? colV1 : colV2;
        let n = 0;
        const request = fc.oneof(
          {
            weight: 6,
            arbitrary: mutated(COLLECTION_FIELDS).map((over) => {
              const plain: Record<string, unknown> = {
                senderId: `fz-${scheme}-${Date.now().toString(36)}-${n++}`,
                amount: '250.50',
              };
              for (const [k, v] of Object.entries(over)) {
                if (v === undefined) delete plain[k];
                else plain[k] = v;
              }
              return { payload: party.client.encrypt(plain) };
            }),
          },
          { weight: 1, arbitrary: encryptable.map((v) => ({ payload: party.client.encrypt(v) })) },
          { weight: 1, arbitrary: fc.record({ payload: hostileValue }, { requiredKeys: [] }) },
          { weight: 1, arbitrary: hostileValue },
        );
        await run(
          fc.asyncProperty(request, async (body) => {
            await probe(
              'collection',
              `collection initiate ${scheme} ${String(JSON.stringify(body)).slice(0, 120)}`,
              () => post('/collection/v1/initiate', body, party.client.auth()),
            );
          }),
        );
      });
    }

    it('collection status (GET): hostile query strings, with and without a token', async () => {
      await run(
        fc.asyncProperty(
          fc.constantFrom('v1', 'v2', 'none'),
          hostileQuery(['txnId', 'senderId']),
          async (who, query) => {
            const headers = who === 'none' ? {} : (who === 'v1' ? colV1 : colV2).client.auth();
            await probe('collection', `GET status${query}`, () =>
              http(t.url, 'GET', `/collection/v1/status${query}`, { headers }),
            );
          },
        ),
      );
    });

    it('sandbox simulate: hostile txnId in the path and hostile bodies', async () => {
      const txn = fc.oneof(fc.constantFrom(...txnIds), hostileSegment);
      const body = fc.oneof(
        fc.record(
          { outcome: fc.oneof(fc.constantFrom('SUCCESS', 'FAILED', 'PENDING'), hostileValue), utr: hostileValue },
          { requiredKeys: ['outcome'] },
        ),
        hostileValue,
      );
      await run(
        fc.asyncProperty(fc.constantFrom('v1', 'v2'), txn, body, async (scheme, txnId, b) => {
          const client = (scheme === 'v1' ? colV1 : colV2).client;
          await probe('collection', `simulate ${txnId} ${JSON.stringify(b)?.slice(0, 120)}`, () =>
            post(`/sandbox/v1/collections/${txnId}/simulate`, b, client.auth()),
          );
        }),
      );
    });
  });

  describe('merchant routes added with bulk, verification and the payment page', () => {
    // No callback_url: a batch whose every item is refused completes at once, and its payout.batch.completed
    // delivery, attempted in the background, would change the tables under a later probe.
    const BULK_FIELDS = ['batch_id', 'items', 'dry_run', 'atomic'];
    for (const scheme of ['v1', 'v2'] as const) {
      it(`bulk payouts, ${scheme}: hostile batches (encrypted), hostile items in both shapes, garbage payloads`, async () => {
        const party = scheme === 'v1' ? payV1 : payV2;
        let n = 0;
        const item = fc.oneof(
          fc
            .tuple(
              fc.constantFrom('nested', 'flat') as fc.Arbitrary<'nested' | 'flat'>,
              mutated(['amount', 'sender_id']),
            )
            .map(([shape, over]) =>
              payoutRequest(shape, { wallet_id: party.merchant.wallet_id, sender_id: `fzb-${scheme}-${n++}` }, over),
            ),
          hostileValue,
        );
        const batch = fc.tuple(mutated(BULK_FIELDS), fc.array(item, { maxLength: 4 })).map(([over, items]) => {
          const plain: Record<string, unknown> = { batch_id: `fzb-${scheme}-${n++}`, items, dry_run: true };
          for (const [k, v] of Object.entries(over)) {
            if (v === undefined) delete plain[k];
            else plain[k] = v;
          }
          return { payload: party.client.encrypt(plain) };
        });
        const body = fc.oneof(
          { weight: 6, arbitrary: batch },
          { weight: 1, arbitrary: encryptable.map((v) => ({ payload: party.client.encrypt(v) })) },
          { weight: 1, arbitrary: hostileValue },
        );
        await run(
          fc.asyncProperty(body, async (b) => {
            await probe('payout', `bulk ${scheme} ${String(JSON.stringify(b)).slice(0, 120)}`, () =>
              post('/payout/v1/bulk', b, party.client.auth()),
            );
          }),
        );
      });

      it(`beneficiary verify, ${scheme}: hostile fields (encrypted) and garbage payloads`, async () => {
        const party = scheme === 'v1' ? payV1 : payV2;
        const fields = ['beneficiary_name', 'beneficiary_acc_number', 'beneficiary_ifsc'];
        const body = fc.oneof(
          {
            weight: 4,
            arbitrary: mutated(fields).map((over) => {
              const plain: Record<string, unknown> = {
                beneficiary_name: 'Asha Rao',
                beneficiary_acc_number: '100000000001',
                beneficiary_ifsc: 'SBOX0000001',
              };
              for (const [k, v] of Object.entries(over)) {
                if (v === undefined) delete plain[k];
                else plain[k] = v;
              }
              return { payload: party.client.encrypt(plain) };
            }),
          },
          { weight: 1, arbitrary: hostileValue },
        );
        await run(
          fc.asyncProperty(body, async (b) => {
            await probe('payout', `verify ${scheme} ${String(JSON.stringify(b)).slice(0, 120)}`, () =>
              post('/payout/v1/beneficiary/verify', b, party.client.auth()),
            );
          }),
        );
      });

      it(`collection status (POST), ${scheme}: hostile identifiers (encrypted) and garbage payloads`, async () => {
        const party = scheme === 'v1' ? colV1 : colV2;
        const body = fc.oneof(
          {
            weight: 4,
            arbitrary: fc
              .record(
                { txnId: fc.oneof(fc.constantFrom(...txnIds), hostileValue), senderId: hostileValue },
                {
                  requiredKeys: [],
                },
              )
              .map((plain) => ({ payload: party.client.encrypt(plain) })),
          },
          { weight: 1, arbitrary: hostileValue },
        );
        await run(
          fc.asyncProperty(body, fc.boolean(), async (b, withToken) => {
            await probe('collection', `POST status ${scheme} ${String(JSON.stringify(b)).slice(0, 120)}`, () =>
              post('/collection/v1/status', b, withToken ? party.client.auth() : {}),
            );
          }),
        );
      });
    }

    it('bulk status and collection QR: hostile query strings, both schemes', async () => {
      await run(
        fc.asyncProperty(fc.constantFrom('v1', 'v2'), fc.constantFrom('bulk', 'qr'), async (scheme, what) => {
          const path = what === 'bulk' ? '/payout/v1/bulk/status' : '/collection/v1/qr';
          const keys = what === 'bulk' ? ['batch_id', 'cursor'] : ['txnId', 'format', 'size'];
          const family: Family = what === 'bulk' ? 'payout' : 'collection';
          const client =
            what === 'bulk' ? (scheme === 'v1' ? payV1 : payV2).client : (scheme === 'v1' ? colV1 : colV2).client;
          const [query] = fc.sample(hostileQuery(keys), 1) as [string];
          const res = await probe(family, `GET ${path}${query}`, () =>
            http(t.url, 'GET', `${path}${query}`, { headers: client.auth() }),
          );
          // The QR answers an image, not an envelope, when it is drawn.
          if (what === 'qr' && res.status === 200) expect(String(res.headers.get('content-type'))).toMatch(/^image\//);
        }),
      );
    });
  });

  describe('counterexamples found by fuzzing (kept as plain tests)', () => {
    it('a webhook cursor beyond int8 is 400, not 500', async () => {
      for (const key of ['9223372036854775808', '9999999999999999999']) {
        const res = await admin(
          t.url,
          'GET',
          `/admin/v1/webhooks/deliveries?cursor=${Buffer.from(key).toString('base64url')}`,
        );
        expect(res.status, key).toBe(400);
        expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
      }
      const max = Buffer.from('9223372036854775807').toString('base64url');
      expect((await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?cursor=${max}`)).status).toBe(200);
    });

    it('amounts beyond the int8 paise column are refused, not a 500 (credit, limits)', async () => {
      const wallet = (await admin(t.url, 'POST', `/admin/v1/merchants/${victim.merchant_id}/wallets`)).body
        .wallet_id as string;
      for (const amount of ['92233720368547758.08', '9223372036854775808', 1e21]) {
        const res = await admin(t.url, 'POST', `/admin/v1/wallets/${wallet}/credits`, { amount });
        expect(res.status, String(amount)).toBe(400);
        const limit = await admin(t.url, 'PATCH', `/admin/v1/merchants/${victim.merchant_id}`, { daily_limit: amount });
        expect(limit.status, String(amount)).toBe(400);
      }
      // The largest credit, again and again: the balance column (int8 paise) fills after 93 of them; the credit
      // that no longer fits is refused and changes nothing.
      let res = await admin(t.url, 'POST', `/admin/v1/wallets/${wallet}/credits`, { amount: '999999999999999.99' });
      for (let i = 0; i < 100 && res.status === 200; i++) {
        res = await admin(t.url, 'POST', `/admin/v1/wallets/${wallet}/credits`, { amount: '999999999999999.99' });
      }
      const before = await snapshot(t.db);
      res = await admin(t.url, 'POST', `/admin/v1/wallets/${wallet}/credits`, { amount: '999999999999999.99' });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
      expect(await snapshot(t.db)).toEqual(before);
    });

    it('a 300 KB path parameter is refused by the HTTP layer (431), not a 500', async () => {
      const res = await admin(t.url, 'GET', `/admin/v1/merchants/${'%f0%9f%98%80'.repeat(25_600)}`);
      expect(res.status).toBe(431);
    });
  });

  describe('admin routes', () => {
    const merchantId = () => fc.oneof(fc.constant(victim.merchant_id), hostileSegment);
    const walletId = () => fc.oneof(fc.constant(victim.wallet_id), hostileSegment);
    const call = (method: string, path: string, body?: unknown) =>
      http(t.url, method, path, {
        ...(body === undefined ? {} : { rawBody: JSON.stringify(body) }),
        headers: { ...adminAuth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      });

    it('merchant create: hostile names and extra fields', async () => {
      const body = fc.oneof(
        fc.record({ name: hostileValue }, { requiredKeys: [] }),
        fc.tuple(hostileValue, fc.string({ maxLength: 10 }), hostileValue).map(([name, k, v]) => ({ name, [k]: v })),
        hostileValue,
      );
      await run(
        fc.asyncProperty(body, (b) =>
          probe('admin', `create ${JSON.stringify(b)?.slice(0, 150)}`, () =>
            call('POST', '/admin/v1/merchants', b),
          ).then(() => undefined),
        ),
      );
    });

    it('merchant get and patch: hostile ids and fields', async () => {
      const patch = mutated([
        'daily_limit',
        'monthly_limit',
        'collection_callback_url',
        'upi_vpa',
        'upi_payee_name',
        'status',
      ]).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
      await run(
        fc.asyncProperty(merchantId(), fc.option(patch, { nil: undefined }), async (id, body) => {
          if (body === undefined)
            await probe('admin', `GET merchant ${id}`, () => call('GET', `/admin/v1/merchants/${id}`));
          else
            await probe('admin', `PATCH ${id} ${String(JSON.stringify(body)).slice(0, 150)}`, () =>
              call('PATCH', `/admin/v1/merchants/${id}`, body),
            );
        }),
      );
    });

    it('wallet create and credit: hostile ids, amounts and references', async () => {
      const credit = fc.record(
        { amount: fc.oneof(hostileValue, hostileText), reference: hostileValue },
        { requiredKeys: [] },
      );
      await run(
        fc.asyncProperty(fc.boolean(), merchantId(), walletId(), credit, async (createWallet, mid, wid, body) => {
          if (createWallet)
            await probe('admin', `wallet create ${mid}`, () => call('POST', `/admin/v1/merchants/${mid}/wallets`));
          else
            await probe('admin', `credit ${wid} ${String(JSON.stringify(body)).slice(0, 150)}`, () =>
              call('POST', `/admin/v1/wallets/${wid}/credits`, body),
            );
        }),
      );
    });

    it('payouts list and resolve: hostile query strings, ids and bodies', async () => {
      const resolveBody = fc.record(
        { status: fc.oneof(fc.constantFrom('SUCCESS', 'FAILED'), hostileValue), utr_number: hostileValue },
        { requiredKeys: [] },
      );
      await run(
        fc.asyncProperty(
          hostileQuery(['merchant_id', 'status', 'limit', 'cursor']),
          fc.oneof(fc.constantFrom(...payoutIds), hostileSegment),
          fc.option(resolveBody, { nil: undefined }),
          async (query, id, body) => {
            if (body === undefined)
              await probe('admin', `GET payouts${query}`, () => call('GET', `/admin/v1/payouts${query}`));
            else
              await probe('admin', `resolve ${id} ${String(JSON.stringify(body)).slice(0, 150)}`, () =>
                call('POST', `/admin/v1/payouts/${id}/resolve`, body),
              );
          },
        ),
      );
    });

    it('collection resolve: hostile ids and bodies', async () => {
      const resolveBody = fc.record(
        {
          status: fc.oneof(fc.constantFrom('SUCCESS', 'FAILED', 'PENDING'), hostileValue),
          utr: hostileValue,
          reason: hostileValue,
        },
        { requiredKeys: [] },
      );
      await run(
        fc.asyncProperty(fc.oneof(fc.constantFrom(...txnIds), hostileSegment), resolveBody, async (id, body) => {
          await probe('admin', `collection resolve ${id} ${String(JSON.stringify(body)).slice(0, 150)}`, () =>
            call('POST', `/admin/v1/collections/${id}/resolve`, body),
          );
        }),
      );
    });

    it('PSP notifications: hostile signed bodies (ids never issued) and hostile signature headers', async () => {
      const notification = fc.oneof(
        fc.record(
          {
            txnId: hostileValue,
            transactionId: hostileValue,
            reference: hostileValue,
            status: fc.oneof(fc.constantFrom('SUCCESS', 'FAILED', 'PENDING', 'PROCESSING'), hostileValue),
            utr: hostileValue,
            amount: hostileValue,
            reason: hostileValue,
          },
          { requiredKeys: [] },
        ),
        hostileValue,
      );
      // Header values must be printable ASCII for fetch to send them at all.
      const signature = fc.oneof(
        fc.constant('sign'),
        hostileText.map((text) => text.replace(/[^\x20-\x7e]/g, '').trim() || 'x'),
      );
      await run(
        fc.asyncProperty(
          fc.constantFrom('collections', 'payouts'),
          notification,
          signature,
          async (kind, body, sig) => {
            const raw = JSON.stringify(body) ?? 'null';
            const header = sig === 'sign' ? signPspNotification(PSP_SECRET, raw, Date.now() / 1000) : sig;
            await probe('admin', `psp ${kind} ${sig.slice(0, 40)} ${raw.slice(0, 150)}`, () =>
              http(t.url, 'POST', `/psp/v1/${kind}/notify`, {
                rawBody: raw,
                headers: { 'content-type': 'application/json', 'payrail-signature': header },
              }),
            );
          },
        ),
      );
    });

    it('read routes of the console API: hostile query strings and ids (lists, timelines, statements, stats, fees)', async () => {
      const paths = fc.constantFrom(
        ['/admin/v1/merchants', ['q', 'status', 'limit', 'cursor']],
        ['/admin/v1/batches', ['merchant_id', 'limit', 'cursor']],
        ['/admin/v1/collections', ['merchant_id', 'status', 'limit', 'cursor']],
        ['/admin/v1/audit', ['actor', 'action', 'limit', 'cursor']],
        ['/admin/v1/stats', ['hours']],
        ['/admin/v1/credit-requests', ['status', 'limit', 'cursor']],
        ['/admin/v1/wallets/{w}/statement', ['from', 'to', 'format']],
        ['/admin/v1/wallets/{w}', []],
        ['/admin/v1/payouts/{p}', []],
        ['/admin/v1/payouts/{p}/timeline', []],
        ['/admin/v1/collections/{c}', []],
        ['/admin/v1/collections/{c}/timeline', []],
        ['/admin/v1/batches/{m}/{b}', ['cursor']],
        ['/admin/v1/platform/fees', ['from', 'to', 'group', 'merchant_id', 'format']],
        ['/admin/v1/platform/wallets', []],
      ) as fc.Arbitrary<[string, string[]]>;
      await run(
        fc.asyncProperty(paths, fc.boolean(), hostileSegment, async ([template, keys], realIds, segment) => {
          const id = (real: string) => (realIds ? real : segment);
          const path = template
            .replace('{w}', id(victim.wallet_id))
            .replace('{p}', id(payoutIds[0] as string))
            .replace('{c}', id(txnIds[0] as string))
            .replace('{m}', id(victim.merchant_id))
            .replace('{b}', segment);
          const [query] = keys.length ? (fc.sample(hostileQuery(keys), 1) as [string]) : [''];
          await probe('admin', `GET ${path}${query}`, () => call('GET', `${path}${query}`));
        }),
      );
    });

    it('webhook deliveries list and replay, ledger verify: hostile query strings and ids', async () => {
      const cursor = fc.oneof(
        fc
          .constantFrom('9223372036854775807', '9223372036854775808', '9999999999999999999', '0', '-1')
          .map((k) => Buffer.from(k).toString('base64url')),
        hostileText.map((s) => Buffer.from(s).toString('base64url')),
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => Buffer.from(String(n)).toString('base64url')),
      );
      await run(
        fc.asyncProperty(
          fc.constantFrom('list', 'replay', 'verify'),
          hostileQuery(['merchant_id', 'state', 'subject_id', 'limit', 'cursor']),
          cursor,
          fc.oneof(fc.constantFrom(...deliveryIds), hostileSegment),
          async (what, query, c, id) => {
            if (what === 'list') {
              const q = `${query}${query ? '&' : '?'}cursor=${c}`;
              await probe('admin', `GET deliveries${q}`, () => call('GET', `/admin/v1/webhooks/deliveries${q}`));
              await probe('admin', `GET deliveries${query}`, () =>
                call('GET', `/admin/v1/webhooks/deliveries${query}`),
              );
            } else if (what === 'replay') {
              await probe('admin', `replay ${id}`, () => call('POST', `/admin/v1/webhooks/deliveries/${id}/replay`));
            } else {
              const res = await probe('admin', `verify${query}`, () => call('GET', `/admin/v1/ledger/verify${query}`));
              // A query past Node's header limit is answered 431 before the route runs; any answer of the route says ok.
              if (res.status !== 431) expect(res.body).toMatchObject({ ok: true });
            }
          },
        ),
      );
    });
  });
});
