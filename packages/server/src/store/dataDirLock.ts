import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

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

/** Lock files this process holds now: a second open of the same directory in one process is refused too. */
const heldHere = new Set<string>();

/**
 * Creates the lock file with our pid in one step (hard link of a complete temp file), so that no other process
 * ever reads it empty and takes it over; falls back to an exclusive create where hard links are unsupported.
 * Throws EEXIST when the lock file exists.
 */
async function createLockFile(lockPath: string): Promise<void> {
  const temp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, String(process.pid), { mode: 0o600 });
  try {
    await link(temp, lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw err;
    await writeFile(lockPath, String(process.pid), { mode: 0o600, flag: 'wx' });
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Guards the embedded database directory: PGlite has no lock of its own, and after a `kill -9` it leaves
 * `postmaster.pid` behind and then hangs on open. We hold `payrail.lock` (our pid, created exclusively), and
 * when we find a lock whose owner is gone we clear it and PGlite's stale pid file before opening.
 */
export async function lockDataDir(dataDir: string, pgDataDir: string): Promise<DataDirLock> {
  const lockPath = join(resolve(dataDir), 'payrail.lock');
  // Checked and claimed before the first await, so that concurrent calls in this process cannot both pass.
  if (heldHere.has(lockPath)) throw new DataDirLockedError(dataDir, process.pid);
  heldHere.add(lockPath);
  try {
    await mkdir(dataDir, { recursive: true });
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await createLockFile(lockPath);
        await rm(join(pgDataDir, 'postmaster.pid'), { force: true });
        let released = false;
        return {
          async release() {
            if (released) return;
            released = true;
            heldHere.delete(lockPath);
            const owner = await readFile(lockPath, 'utf8').catch(() => '');
            if (owner === String(process.pid)) await rm(lockPath, { force: true });
          },
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
      // A lock naming our own pid that this process does not hold is stale: an earlier process with the same
      // pid (a container's pid 1 after `kill -9`).
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DataDirLockedError(dataDir, owner);
      }
      // The owner died without releasing: take it over.
      await rm(lockPath, { force: true });
    }
    throw new Error(`could not lock data directory ${dataDir}`);
  } catch (err) {
    heldHere.delete(lockPath);
    throw err;
  }
}
