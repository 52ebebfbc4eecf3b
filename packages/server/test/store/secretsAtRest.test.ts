import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import { encryptJson } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { loadConfig } from '../../src/config.ts';
import { createServer } from '../../src/server.ts';
import { rotateMasterKey, rotateMasterKeyOf } from '../../src/services/SecretsAtRest.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPgliteDatabase } from '../../src/store/pgliteDatabase.ts';
import { MerchantRepository } from '../../src/store/repositories/MerchantRepository.ts';
import { masterKeyId, SecretBox } from '../../src/store/SecretBox.ts';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { initiateOk, payoutRequest, SANDBOX } from '../support/payoutFixtures.ts';
import {
  createTestSchema,
  ENGINES,
  startTestServer,
  TEST_ADMIN_TOKEN,
  type EngineName,
  type TestServer,
} from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

const K1 = Buffer.alloc(32, 0x11);
const K2 = Buffer.alloc(32, 0x22);
const WRONG = Buffer.alloc(32, 0x33);
const b64 = (k: Buffer) => k.toString('base64');

const hexHmac = (secret: string, body: string) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');

interface Known extends TestMerchant {
  previous_webhook_secret?: string;
}

/** respCode of a token request: V2, V1 with X-Api-Key, V1 without (the provider interface's shape). */
async function tokenCodes(url: string, m: TestMerchant): Promise<number[]> {
  const keys = { apiKey: m.api_key, secretKey: m.secret_key };
  const payload = encryptJson(keys, 'v1', keys);
  const answers = await Promise.all([
    http(url, 'POST', '/v1/auth/client-token', { body: keys }),
    http(url, 'POST', '/v1/auth/clients/token', { body: { payload }, headers: { 'x-api-key': m.api_key } }),
    http(url, 'POST', '/v1/auth/clients/token', { body: { payload } }),
  ]);
  return answers.map((a) => a.body.respCode as number);
}

/** Every row of every table of the server's schema as text (PGlite has no pg_dump). */
async function selectDump(db: Database): Promise<string> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  expect(rows.map((r) => r.name)).toContain('merchants');
  let out = '';
  for (const { name } of rows) {
    const table = await db.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
    out += table.rows.map((r) => r.row).join('\n');
  }
  return out;
}

// SECURITY.md, issue 10 finding 8: secrets at rest under PAYRAIL_MASTER_KEY, rotation while serving.
describe.each(ENGINES)('secrets at rest on %s', (engine: EngineName) => {
  let db: Database | undefined;
  let schema: { schema: string; drop(): Promise<void> } | undefined;
  const servers: TestServer[] = [];
  const merchants: Known[] = [];
  let receiver: WebhookReceiver;

  const start = async (env: Record<string, string>) => {
    const t = await startTestServer(engine, { env, db, schema: schema?.schema });
    servers.push(t);
    return t;
  };
  const stopAll = async () => {
    for (const t of servers.splice(0)) await t.close();
  };
  const keysEnv = (current?: Buffer, previous?: Buffer): Record<string, string> => ({
    ...(current ? { PAYRAIL_MASTER_KEY: b64(current) } : {}),
    ...(previous ? { PAYRAIL_MASTER_KEY_PREVIOUS: b64(previous) } : {}),
  });
  /** Creates (without listening) a server on the shared database; it must refuse to start. */
  const refusedStart = (env: Record<string, string>) =>
    createServer(
      loadConfig({
        PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        PAYRAIL_DATA_DIR: '/nonexistent-payrail-test',
        ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL as string } : {}),
        ...env,
      }),
      { logger: createLogger('silent'), db, schema: schema?.schema },
    );
  const storedValues = async (q: Database) =>
    (
      await q.query<{ api_key: string; secret_key: string; webhook_secret: string; previous_webhook_secret: string }>(
        'SELECT api_key, secret_key, webhook_secret, previous_webhook_secret FROM merchants',
      )
    ).rows.flatMap((r) => Object.values(r).filter((v): v is string => v !== null));

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    if (engine === 'pglite') {
      db = await createPgliteDatabase(undefined);
      await migrate(db);
    } else {
      schema = await createTestSchema();
    }
  });
  afterAll(async () => {
    await stopAll();
    await db?.close();
    await schema?.drop();
    await receiver.stop();
  });

  it('plain rows written without a master key are sealed when one is configured, by two instances at once', async () => {
    const plain = await start({});
    for (let i = 0; i < 3; i++) merchants.push(await createMerchant(plain.url, `Secret ${i}`, '1000.00'));
    const rotated = await admin(
      plain.url,
      'POST',
      `/admin/v1/merchants/${merchants[0]?.merchant_id}/webhook-secret/rotate`,
      {},
    );
    expect(rotated.status).toBe(200);
    (merchants[0] as Known).previous_webhook_secret = merchants[0]?.webhook_secret;
    (merchants[0] as Known).webhook_secret = rotated.body.webhook_secret as string;
    // The sandbox default: plain text, as before.
    expect(await storedValues(plain.db)).toContain(merchants[1]?.api_key);
    await stopAll();

    const [a, b] = await Promise.all([start(keysEnv(K1)), start(keysEnv(K1))]);
    const values = await storedValues((a as TestServer).db);
    expect(values.length).toBe(3 * 3 + 1);
    for (const v of values) expect(v).toMatch(new RegExp(`^pr1:${masterKeyId(K1)}:[A-Za-z0-9+/]+=*$`));
    for (const m of merchants) {
      expect(await tokenCodes((a as TestServer).url, m)).toEqual([2000, 2000, 2000]);
      expect(await tokenCodes((b as TestServer).url, m)).toEqual([2000, 2000, 2000]);
    }
  });

  it('a dump of the database holds no API key, secret key, webhook secret, signing key nor admin token', async () => {
    const t = servers[0] as TestServer;
    merchants.push(await createMerchant(t.url, 'Secret after', '1000.00'));
    for (const m of merchants) expect(await tokenCodes(t.url, m)).toEqual([2000, 2000, 2000]);
    const storedJwtKey = await t.db.query<{ value: string }>(
      `SELECT value FROM settings WHERE key = 'jwt_signing_key'`,
    );
    const jwtKey = SecretBox.withKeys(K1).open(storedJwtKey.rows[0]?.value as string, 'settings:jwt_signing_key');
    expect(jwtKey.length).toBeGreaterThanOrEqual(32);

    const dump =
      engine === 'postgres'
        ? (
            await promisify(execFile)('pg_dump', [`--schema=${t.schema}`, process.env.TEST_DATABASE_URL as string], {
              maxBuffer: 64 * 1024 * 1024,
            })
          ).stdout
        : await selectDump(t.db);
    expect(dump).toContain(merchants[0]?.merchant_id);
    const secrets = [jwtKey, Buffer.from(jwtKey, 'base64').toString('hex'), TEST_ADMIN_TOKEN];
    for (const m of merchants) {
      for (const whsec of [m.webhook_secret, m.previous_webhook_secret].filter((s): s is string => !!s)) {
        secrets.push(whsec, whsec.slice('whsec_'.length), Buffer.from(whsec.slice(6), 'base64').toString('hex'));
      }
      secrets.push(m.api_key, m.secret_key, Buffer.from(m.api_key).toString('base64'));
      secrets.push(Buffer.from(m.secret_key).toString('base64'));
    }
    expect(secrets.length).toBeGreaterThan(20);
    for (const secret of secrets) expect(dump.includes(secret), `dump contains a secret`).toBe(false);
  });

  it('a wrong or missing master key stops the start with a clear message', async () => {
    const id = masterKeyId(K1);
    await expect(refusedStart(keysEnv(WRONG))).rejects.toThrow(
      new RegExp(`PAYRAIL_MASTER_KEY: the database holds secrets sealed under master key id ${id}`),
    );
    await expect(refusedStart({})).rejects.toThrow(/PAYRAIL_MASTER_KEY is not set/);
  });

  it('rotation while a server with both keys keeps serving; every merchant keeps its tokens and webhooks', async () => {
    await stopAll();
    const s = await start(keysEnv(K2, K1));
    // Under load while the rotation runs: token requests of every kind for every merchant, and a new merchant.
    let stop = false;
    const failures: number[][] = [];
    const load = (async () => {
      while (!stop) {
        for (const m of merchants) {
          const codes = await tokenCodes(s.url, m);
          if (codes.some((c) => c !== 2000)) failures.push(codes);
        }
      }
    })();
    const created = createMerchant(s.url, 'Secret during rotation', '1000.00');
    // Half-rotated states, one merchant at a time: every merchant works after each step.
    const repo = new MerchantRepository(SecretBox.withKeys(K2, K1));
    let steps = 0;
    for (let after: string | null = ''; after !== null; steps++) {
      after = (await repo.resealBatch(s.db, after, 1, false)).next;
      for (const m of merchants) expect(await tokenCodes(s.url, m)).toEqual([2000, 2000, 2000]);
    }
    expect(steps).toBeGreaterThanOrEqual(4);
    // Then the whole rotation (on PostgreSQL as `payrail keys rotate-master` runs it, from its own connection).
    const report =
      engine === 'postgres'
        ? await rotateMasterKeyOf({
            databaseUrl: process.env.TEST_DATABASE_URL,
            schema: schema?.schema,
            dataDir: '/nonexistent-payrail-test',
            masterKey: K2,
            previousMasterKey: K1,
          })
        : await rotateMasterKey(s.db, SecretBox.withKeys(K2, K1));
    merchants.push(await created);
    await new Promise((r) => setTimeout(r, 200));
    stop = true;
    await load;
    expect(failures).toEqual([]);
    expect(report.settings).toBe(1);
    expect(report.keyIds).toEqual([masterKeyId(K2)]);
    for (const v of await storedValues(s.db)) expect(v.startsWith(`pr1:${masterKeyId(K2)}:`)).toBe(true);
    for (const m of merchants) expect(await tokenCodes(s.url, m)).toEqual([2000, 2000, 2000]);

    // The old key removed: the server starts on K2 alone; tokens, sessions and signed webhooks all work.
    await stopAll();
    const after = await start(keysEnv(K2));
    for (const [i, m] of merchants.entries()) {
      expect(await tokenCodes(after.url, m)).toEqual([2000, 2000, 2000]);
      const client = await MerchantClient.connect(after.url, m, i % 2 ? 'v1' : 'v2');
      const path = `/rot/${engine}/${i}`;
      await initiateOk(
        client,
        payoutRequest(client.scheme === 'v1' ? 'flat' : 'nested', {
          wallet_id: m.wallet_id,
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.success,
          callback_url: receiver.url + path,
        }),
      );
      const hook = await eventually(() => receiver.at(path)[0]);
      const expected = [m.webhook_secret, m.previous_webhook_secret]
        .filter((x): x is string => !!x)
        .map((secret) => `sha256=${hexHmac(secret, hook?.body as string)}`)
        .join(',');
      expect(hook?.headers['x-signature']).toBe(expected);
    }
    // And K1 alone is now refused: nothing is sealed under it any more.
    await expect(refusedStart(keysEnv(K1))).rejects.toThrow(/sealed under master key id/);
  });
});
