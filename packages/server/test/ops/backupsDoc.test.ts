import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../src/store/migrateDatabase.ts';
import { admin, createMerchant, MerchantClient } from '../support/merchantClient.ts';
import { payoutRequest, SANDBOX } from '../support/payoutFixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, TEST_MASTER_KEY } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

const run = promisify(execFile);
const DOC = new URL('../../../../docs/operator/backups.md', import.meta.url);

/** The doc's `sh` blocks, each found by a command it holds. */
async function block(holding: string): Promise<string> {
  const markdown = await readFile(DOC, 'utf8');
  const blocks = [...markdown.matchAll(/^ *```sh\n([\s\S]*?)^ *```$/gm)].map((m) => m[1] as string);
  const found = blocks.filter((b) => b.includes(holding));
  if (found.length !== 1) throw new Error(`${found.length} sh blocks of backups.md hold ${holding}`);
  return found[0] as string;
}

/** Runs a block of the doc as pasted into bash (each command must succeed), with these variables set. */
async function paste(script: string, env: Record<string, string>, cwd?: string): Promise<string> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  return stdout;
}

/**
 * docs/operator/backups.md, run as written on PostgreSQL: the dump of a database a server used, restored into an
 * empty one, the key id checks, and the restored copy started with PAYRAIL_WORKER=off, answering reads, verifying its
 * ledger and moving nothing.
 */
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('backups.md on PostgreSQL', () => {
  const base = process.env.TEST_DATABASE_URL as string;
  const suffix = randomBytes(4).toString('hex');
  const names = { live: `payrail_backup_${suffix}`, restored: `payrail_restored_${suffix}` };
  const urlOf = (name: string) => {
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const admin_ = async (sql: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-backup-'));
    await admin_(`CREATE DATABASE ${names.live}`);
    await admin_(`CREATE DATABASE ${names.restored}`);
  });

  afterAll(async () => {
    for (const name of Object.values(names)) await admin_(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await rm(dir, { recursive: true, force: true });
  });

  it('backs up, restores, and starts a copy that serves reads and moves no money', async () => {
    const env = {
      DATABASE_URL: urlOf(names.live),
      RESTORE_URL: urlOf(names.restored),
      BACKUP: join(dir, 'payrail.dump'),
      PAYRAIL_MASTER_KEY: TEST_MASTER_KEY,
      PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    };
    // Production: a merchant whose secrets are sealed, and a payout whose first step is due when the backup is taken.
    const live = await startTestServer('postgres', {
      schema: 'public',
      // No worker here either, so that the payout's first step is due, and not taken, when the dump is taken.
      env: {
        DATABASE_URL: env.DATABASE_URL,
        PAYRAIL_MASTER_KEY: TEST_MASTER_KEY,
        PAYRAIL_SANDBOX_STEP_MS: '20',
        PAYRAIL_WORKER: 'off',
      },
    });
    let queued: string;
    let merchantId: string;
    try {
      const m = await createMerchant(live.url, 'Backed Up', '500.00');
      merchantId = m.merchant_id;
      const client = await MerchantClient.connect(live.url, m, 'v2');
      const res = await client.post(
        '/payout/v1/initiate',
        payoutRequest('nested', {
          wallet_id: m.wallet_id,
          amount: '25.00',
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.success,
        }),
      );
      expect(res.body.resp_code).toBe(2000);
      queued = res.data?.transaction_id as string;
      expect((await admin(live.url, 'GET', `/admin/v1/payouts/${queued}`)).body.status).toBe('INITIATED');

      const listed = await paste(await block('pg_dump'), env);
      expect(Number(listed.trim())).toBeGreaterThan(20);
    } finally {
      await live.close();
    }

    const version = await paste(await block('pg_restore --no-owner'), env);
    expect(Number(version.trim())).toBeGreaterThan(30);
    const [held, needed] = (await paste(await block('sha256sum'), env)).trim().split('\n');
    expect(held).toMatch(/^[0-9a-f]{8}$/);
    expect(needed).toBe(held);

    // The copy, as the doc starts it (in process here): PAYRAIL_WORKER=off on the restored database.
    const copy = await startTestServer('postgres', {
      schema: 'public',
      env: {
        DATABASE_URL: env.RESTORE_URL,
        PAYRAIL_WORKER: 'off',
        PAYRAIL_MASTER_KEY: TEST_MASTER_KEY,
        PAYRAIL_SANDBOX_STEP_MS: '20',
      },
    });
    try {
      // The doc's copy listens on 8081; this one on a free port.
      const checks = await paste((await block('ledger/verify')).replaceAll('http://127.0.0.1:8081', copy.url), env);
      expect(checks).toContain('"worker":"off"');
      expect(checks).toContain('"ok":true');
      expect((await admin(copy.url, 'GET', `/admin/v1/merchants/${merchantId}`)).status).toBe(200);
      // Steps every 20 ms would have finished it long before: the copy runs none.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect((await admin(copy.url, 'GET', `/admin/v1/payouts/${queued}`)).body.status).toBe('INITIATED');
    } finally {
      await copy.close();
    }

    // Told to: the same copy with its worker on carries the queued payout on to its end.
    const told = await startTestServer('postgres', {
      schema: 'public',
      env: { DATABASE_URL: env.RESTORE_URL, PAYRAIL_MASTER_KEY: TEST_MASTER_KEY, PAYRAIL_SANDBOX_STEP_MS: '20' },
    });
    try {
      await eventually(
        async () => (await admin(told.url, 'GET', `/admin/v1/payouts/${queued}`)).body.status === 'SUCCESS',
        15_000,
        100,
      );
    } finally {
      await told.close();
    }
  }, 90_000);
});

/** The embedded database's blocks of backups.md, run as written: the stopped data folder, copied and restored. */
describe('backups.md on the embedded database', () => {
  it('the folder, copied while stopped (the lock left out), restores into a database at the same schema', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payrail-backup-pglite-'));
    try {
      const dataDir = join(dir, 'data');
      const made = await migrateDatabase({ dataDir });
      expect(made.applied.length).toBe(made.total);
      // A lock left behind (a killed server) stays out of the copy.
      await writeFile(join(dataDir, 'payrail.lock'), '999999');
      const env = { PAYRAIL_DATA_DIR: dataDir, BACKUP: join(dir, 'payrail-data.tgz') };
      await paste(await block('tar -czf'), env, dir);
      await paste(await block('tar -xzf'), env, dir);
      await expect(stat(join(dir, 'restored', 'payrail.lock'))).rejects.toThrow();
      // The restored folder is the same database: every migration already applied.
      expect(await migrateDatabase({ dataDir: join(dir, 'restored') })).toMatchObject({ applied: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
