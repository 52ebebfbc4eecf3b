import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`data directory ${dataDir} is in use by process ${pid}; stop it first or choose another PAYRAIL_DATA_DIR`);
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Guards the embedded database directory: PGlite has no lock of its own, and after a `kill -9` it leaves
 * `postmaster.pid` behind and then hangs on open. We hold `payrail.lock` (our pid, created exclusively), and
 * when we find a lock whose owner is gone we clear it and PGlite's stale pid file before opening.
 */
export async function lockDataDir(dataDir: string, pgDataDir: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = join(dataDir, 'payrail.lock');
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      await rm(join(pgDataDir, 'postmaster.pid'), { force: true });
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          const owner = await readFile(lockPath, 'utf8').catch(() => '');
          if (owner === String(process.pid)) await rm(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
      throw new DataDirLockedError(dataDir, owner);
    }
    // The owner died without releasing (or the file is half-written): take it over.
    await rm(lockPath, { force: true });
  }
  throw new Error(`could not lock data directory ${dataDir}`);
}
