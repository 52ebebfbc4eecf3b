import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI_ARGS, cleanEnv, cli } from './support.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-serve-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Two embedded-database starts in child processes (one of them a fresh initdb): allow for slow machines.
it(
  'migrate prepares a fresh data directory, serve runs on it, and operator commands find its admin token',
  { timeout: 120_000 },
  async () => {
    const dataDir = join(dir, 'data');
    const migrated = await cli(['migrate', '--data-dir', dataDir, '--json']);
    expect(migrated.code).toBe(0);
    expect(migrated.json.database).toBe('pglite');
    expect(migrated.json.applied.length).toBe(migrated.json.total);
    expect(migrated.json.applied[0]).toMatch(/^001_/);

    const server = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', '--data-dir', dataDir], {
      env: cleanEnv({ LOG_LEVEL: 'silent', PAYRAIL_SANDBOX_STEP_MS: '50' }),
    });
    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    let stderr = '';
    server.stdout.resume();
    const address = await new Promise<string>((resolve, reject) => {
      server.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
        const m = /listening on (http:\/\/\S+)/.exec(stderr);
        if (m && stderr.includes('Admin token')) resolve(m[1] as string);
      });
      server.on('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    try {
      expect(stderr).toMatch(/sandbox mode, pglite/);
      expect((await fetch(`${address}/healthz`)).status).toBe(200);
      // No PAYRAIL_ADMIN_TOKEN: the operator commands read the token the server generated in its data directory.
      const [created, locked] = await Promise.all([
        cli(['merchant', 'create', 'Local Shop', '--json'], { PAYRAIL_URL: address, PAYRAIL_DATA_DIR: dataDir }),
        cli(['migrate', '--data-dir', dataDir]),
      ]);
      expect(created.code).toBe(0);
      expect(created.json.merchant_id).toMatch(/^MR/);
      // The embedded database is in use by the server.
      expect(locked.code).toBe(6);
      expect(locked.stderr).toContain('in use');
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);

    const again = await cli(['migrate', '--data-dir', dataDir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/is up to date/);
  },
);
