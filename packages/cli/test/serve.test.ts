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

// Three embedded-database starts in child processes (one of them a fresh initdb): allow for slow machines.
it(
  'migrate prepares a fresh data directory, serve runs on it, and operator commands find its admin token',
  { timeout: 240_000 },
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
      // What it is doing, then where to go: the database was prepared by migrate, so this start only opens it.
      expect(stderr).toContain(`Opening the embedded database in ${dataDir}…`);
      expect(stderr).toContain(
        `— console: ${address}/console — admin token: in ${join(dataDir, 'admin-token')} (or set PAYRAIL_ADMIN_TOKEN)`,
      );
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
    // A migration reads where the database is, nothing else: live mode without its master key or connector settings
    // (which the server would refuse to start without) does not stop it.
    const bare = await cli(['migrate', '--data-dir', dataDir], { PAYRAIL_MODE: 'live', PAYRAIL_CONNECTOR: 'upstream' });
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stdout).toMatch(/is up to date/);

    // The same data directory served with PAYRAIL_ADMIN_TOKEN: the generated token in its file is not the server's
    // any more, so the file goes, and a CLI without a token says "missing" instead of being refused with it.
    const token = 'serve-test-admin-token-of-32-characters';
    const configured = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', '--data-dir', dataDir], {
      env: cleanEnv({ LOG_LEVEL: 'silent', PAYRAIL_ADMIN_TOKEN: token }),
    });
    const stopped = new Promise<number | null>((resolve) => configured.on('close', resolve));
    let said = '';
    configured.stdout.resume();
    const url = await new Promise<string>((resolve, reject) => {
      configured.stderr.on('data', (c: Buffer) => {
        said += c.toString('utf8');
        const m = /listening on (http:\/\/\S+)/.exec(said);
        if (m) resolve(m[1] as string);
      });
      configured.on('close', (code) => reject(new Error(`serve exited ${code}: ${said}`)));
    });
    try {
      expect(said).toContain(`Removed ${join(dataDir, 'admin-token')}: it held another token`);
      expect(said).toContain('admin token: PAYRAIL_ADMIN_TOKEN (as configured)');
      const [withoutToken, withToken] = await Promise.all([
        cli(['merchant', 'list', '--json'], { PAYRAIL_URL: url, PAYRAIL_DATA_DIR: dataDir }),
        cli(['merchant', 'list', '--json'], {
          PAYRAIL_URL: url,
          PAYRAIL_DATA_DIR: dataDir,
          PAYRAIL_ADMIN_TOKEN: token,
        }),
      ]);
      expect(withoutToken.code).toBe(2);
      expect(withoutToken.errJson.error.message).toMatch(
        /^admin token missing: pass --admin-token or set PAYRAIL_ADMIN_TOKEN/,
      );
      expect(withToken.code).toBe(0);
      expect(withToken.json.data.map((m: { name: string }) => m.name)).toContain('Local Shop');
    } finally {
      configured.kill('SIGTERM');
    }
    expect(await stopped).toBe(0);
  },
);
