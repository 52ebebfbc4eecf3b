import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitWithin, freePort, spawnServer, type ChildServer } from './support/childServer.ts';

const ADMIN_TOKEN = 'startup-admin-token-of-at-least-32-chars';

/** Resolves once `text` appears on the server's stderr; rejects if it exits first. */
async function stderrShows(server: ChildServer, text: string, timeoutMs = 240_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { stderr } = server.output();
    if (stderr.includes(text)) return stderr;
    if (server.proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${JSON.stringify(text)} on stderr: ${JSON.stringify(server.output())}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

// `npm start` (packages/server/src/main.ts) on a new data directory: a first start initialises the embedded
// database for tens of seconds, and says so before it begins. Two starts, one of them an initdb: allow for it.
describe('npm start tells people what it is doing', { timeout: 480_000 }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('first start: preparing the database, then the address, the console and the admin token file', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payrail-startup-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = String(await freePort());
    const url = `http://127.0.0.1:${port}`;

    const first = spawnServer({ PORT: port, PAYRAIL_DATA_DIR: dataDir });
    cleanups.push(() => first.kill());
    // Said before initdb starts, not after: the line is there while the database is still being prepared.
    await stderrShows(
      first,
      `Preparing the embedded database in ${dataDir} (first start only: creating it and applying the migrations, 10–60 s on an idle machine, longer on a busy one)…`,
    );
    expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(false);
    const stderr = await stderrShows(first, 'Payrail listening on');
    await first.ready();
    expect(stderr).toContain(
      `Payrail listening on ${url} (sandbox mode, pglite) — console: ${url}/console — ` +
        `admin token: in ${join(dataDir, 'admin-token')} (or set PAYRAIL_ADMIN_TOKEN)`,
    );
    // The generated token itself is on the terminal, after the listening line; stdout keeps only the JSON log.
    const generated = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
    const shown = await stderrShows(first, `shown on this first start only): ${generated}`);
    expect(shown.indexOf(`: ${generated}`)).toBeGreaterThan(shown.indexOf('Payrail listening on'));
    expect(first.output().stdout).not.toContain(generated);
    expect((await fetch(`${url}/console`)).status).toBe(200);
    first.proc.kill('SIGTERM');
    expect((await exitWithin(first, 15_000)).code).toBe(0);

    // Started again as it was: the token is in its file, and the terminal says where, not what (issue 32).
    const again0 = spawnServer({ PORT: port, PAYRAIL_DATA_DIR: dataDir });
    cleanups.push(() => again0.kill());
    const restarted = await stderrShows(again0, 'Payrail listening on');
    await again0.ready();
    expect(restarted).toContain(`admin token: in ${join(dataDir, 'admin-token')} (or set PAYRAIL_ADMIN_TOKEN)`);
    expect(again0.output().stderr).not.toContain(generated);
    expect(again0.output().stdout).not.toContain(generated);
    expect((await readFile(join(dataDir, 'admin-token'), 'utf8')).trim()).toBe(generated);
    again0.proc.kill('SIGTERM');
    expect((await exitWithin(again0, 15_000)).code).toBe(0);

    // Again with PAYRAIL_ADMIN_TOKEN: the file's generated token would be refused, so the file goes (the CLI
    // reads it when it has no token of its own) and the line names the variable instead.
    const second = spawnServer({ PORT: port, PAYRAIL_DATA_DIR: dataDir, PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN });
    cleanups.push(() => second.kill());
    await stderrShows(second, `Opening the embedded database in ${dataDir}…`);
    const again = await stderrShows(second, 'Payrail listening on');
    await second.ready();
    expect(again).not.toContain('first start only');
    expect(again).toContain(`Removed ${join(dataDir, 'admin-token')}: it held another token`);
    expect(again).toContain(`console: ${url}/console — admin token: PAYRAIL_ADMIN_TOKEN (as configured)`);
    expect(again).not.toContain(generated);
    expect(existsSync(join(dataDir, 'admin-token'))).toBe(false);
    const auth = (token: string) =>
      fetch(`${url}/admin/v1/merchants`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect([await auth(ADMIN_TOKEN), await auth(generated)]).toEqual([200, 401]);
    second.proc.kill('SIGTERM');
    expect((await exitWithin(second, 15_000)).code).toBe(0);
  });
});
