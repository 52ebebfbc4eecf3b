import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir, type DataDirLock } from '../../src/store/dataDirLock.ts';

const DEAD_PID = 999_999;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

describe('data-dir lock', () => {
  let root: string;
  let dir: string;
  let pgdata: string;
  const held: DataDirLock[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'payrail-lock-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  let n = 0;
  const fresh = async () => {
    dir = join(root, `d${n++}`);
    pgdata = join(dir, 'pgdata');
    await mkdir(pgdata, { recursive: true });
  };
  const take = async () => {
    const lock = await lockDataDir(dir, pgdata);
    held.push(lock);
    return lock;
  };
  afterEach(async () => {
    for (const lock of held.splice(0)) await lock.release();
  });

  it('writes our pid into payrail.lock and removes it on release', async () => {
    await fresh();
    const lock = await take();
    expect(await readFile(join(dir, 'payrail.lock'), 'utf8')).toBe(String(process.pid));
    await lock.release();
    expect(existsSync(join(dir, 'payrail.lock'))).toBe(false);
  });

  it('creates the data directory when it does not exist', async () => {
    dir = join(root, 'not-yet', 'there');
    pgdata = join(dir, 'pgdata');
    await take();
    expect(existsSync(join(dir, 'payrail.lock'))).toBe(true);
  });

  it('refuses a second lock on the same directory while the first is held (same process)', async () => {
    await fresh();
    await take();
    const second = lockDataDir(dir, pgdata);
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toMatchObject({ dataDir: dir, pid: process.pid });
    // The first holder still owns it.
    expect(await readFile(join(dir, 'payrail.lock'), 'utf8')).toBe(String(process.pid));
  });

  it('can be taken again after release', async () => {
    await fresh();
    const first = await take();
    await first.release();
    await take();
    expect(await readFile(join(dir, 'payrail.lock'), 'utf8')).toBe(String(process.pid));
  });

  describe('held by another live process', () => {
    let child: ChildProcess;
    beforeAll(async () => {
      child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      await new Promise((resolve) => child.once('spawn', resolve));
    });
    afterAll(() => {
      child.kill('SIGKILL');
    });

    it('throws DataDirLockedError naming that process, and leaves its lock and pid file alone', async () => {
      await fresh();
      const pid = child.pid as number;
      expect(isAlive(pid)).toBe(true);
      await writeFile(join(dir, 'payrail.lock'), String(pid));
      await writeFile(join(pgdata, 'postmaster.pid'), '42\n');
      const attempt = lockDataDir(dir, pgdata);
      await expect(attempt).rejects.toBeInstanceOf(DataDirLockedError);
      await expect(attempt).rejects.toMatchObject({ pid });
      await expect(attempt).rejects.toThrow(/in use by process \d+/);
      expect(await readFile(join(dir, 'payrail.lock'), 'utf8')).toBe(String(pid));
      expect(existsSync(join(pgdata, 'postmaster.pid'))).toBe(true);
    });
  });

  it('takes over a lock naming a dead pid and removes the stale pgdata/postmaster.pid', async () => {
    await fresh();
    expect(isAlive(DEAD_PID), `pid ${DEAD_PID} must not exist for this test`).toBe(false);
    await writeFile(join(dir, 'payrail.lock'), String(DEAD_PID));
    await writeFile(join(pgdata, 'postmaster.pid'), `${DEAD_PID}\n/pgdata\n`);
    await take();
    expect(await readFile(join(dir, 'payrail.lock'), 'utf8')).toBe(String(process.pid));
    expect(existsSync(join(pgdata, 'postmaster.pid'))).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['garbage', 'not a pid'],
    ['zero', '0'],
    ['negative', '-5'],
  ])('takes over a half-written lock file (%s)', async (_label, content) => {
    await fresh();
    await writeFile(join(dir, 'payrail.lock'), content);
    await take();
    expect(await readFile(join(dir, 'payrail.lock'), 'utf8')).toBe(String(process.pid));
  });

  it('takes over a lock left by an earlier process that had our pid (container restart)', async () => {
    // In a container the server is often pid 1 on every start, so after `kill -9` the stale lock names our own
    // pid. Nothing in this process holds it, so it is stale.
    await fresh();
    await writeFile(join(dir, 'payrail.lock'), String(process.pid));
    await writeFile(join(pgdata, 'postmaster.pid'), '1\n');
    await take();
    expect(existsSync(join(pgdata, 'postmaster.pid'))).toBe(false);
  });

  it('release does not remove a lock that now belongs to someone else', async () => {
    await fresh();
    const lock = await take();
    await writeFile(join(dir, 'payrail.lock'), String(DEAD_PID));
    await lock.release();
    expect(await readFile(join(dir, 'payrail.lock'), 'utf8')).toBe(String(DEAD_PID));
  });

  it('two concurrent lock attempts in one process: exactly one wins', async () => {
    await fresh();
    const results = await Promise.allSettled([lockDataDir(dir, pgdata), lockDataDir(dir, pgdata)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    for (const r of won) held.push((r as PromiseFulfilledResult<DataDirLock>).value);
    expect(won).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(DataDirLockedError);
  });
});
