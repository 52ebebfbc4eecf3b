import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './childServer.ts';

const run = promisify(execFile);

/** The process exists and is not a zombie (an orphan is reaped by whatever init the machine has, maybe late). */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The newest PostgreSQL server binaries installed under /usr/lib/postgresql, or null. */
export async function findPostgresBin(): Promise<string | null> {
  const root = '/usr/lib/postgresql';
  const versions = await readdir(root).catch(() => [] as string[]);
  const bins = versions
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(root, v, 'bin'))
    .filter((bin) => existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl')));
  return bins[0] ?? null;
}

/**
 * A throw-away PostgreSQL cluster of the test's own (never the machine's shared one): initdb in a temporary
 * directory, listening on a free loopback port, stopped and started at will. initdb refuses to run as root, so
 * as root the cluster belongs to the `postgres` system user (through runuser).
 */
export class TempPostgres {
  private constructor(
    readonly bin: string,
    readonly dir: string,
    readonly port: number,
    private readonly asUser: string | null,
  ) {}

  get url(): string {
    return `postgres://payrail@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  static async create(bin: string): Promise<TempPostgres> {
    const dir = await mkdtemp(join(tmpdir(), 'payrail-pg-'));
    const asUser = process.getuid?.() === 0 ? 'postgres' : null;
    if (asUser) {
      const { stdout } = await run('id', ['-u', asUser]);
      const { stdout: gid } = await run('id', ['-g', asUser]);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const pg = new TempPostgres(bin, dir, await freePort(), asUser);
    await pg.pgTool('initdb', ['-D', pg.dataDir, '-A', 'trust', '-U', 'payrail', '-E', 'UTF8', '--no-sync']);
    await pg.start();
    return pg;
  }

  /**
   * A streaming standby of `primary`: `pg_basebackup -R` (which writes standby.signal and primary_conninfo) into a
   * directory of its own, started on a port of its own.
   */
  static async standbyOf(primary: TempPostgres): Promise<TempPostgres> {
    const dir = await mkdtemp(join(tmpdir(), 'payrail-pg-standby-'));
    if (primary.asUser) {
      const { stdout } = await run('id', ['-u', primary.asUser]);
      const { stdout: gid } = await run('id', ['-g', primary.asUser]);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const standby = new TempPostgres(primary.bin, dir, await freePort(), primary.asUser);
    await standby.pgTool('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'payrail', '-D', standby.dataDir],
      ...['-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
    ]);
    await standby.start();
    return standby;
  }

  /** The postmaster's process id (first line of postmaster.pid), while the cluster runs. */
  async postmasterPid(): Promise<number> {
    return Number((await readFile(join(this.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  }

  /**
   * SIGKILL to the postmaster: the machine's loss as its clients see it. Its backends notice and end their
   * sessions ("terminating connection due to unexpected postmaster exit"); nothing is shut down cleanly.
   */
  async kill(): Promise<void> {
    const pid = await this.postmasterPid();
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while (isAlive(pid)) {
      if (Date.now() > deadline) throw new Error(`postmaster ${pid} still alive after SIGKILL`);
      await sleep(20);
    }
  }

  /** `pg_ctl promote -w`: a standby becomes a primary and takes writes. */
  async promote(): Promise<void> {
    await this.pgTool('pg_ctl', ['promote', '-w', '-t', '60', '-D', this.dataDir]);
  }

  /**
   * start() after kill(): the killed postmaster's backends may hold its shared memory for a moment ("pre-existing
   * shared memory block is still in use"), so the start is tried again until they are gone.
   */
  async restart(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.start();
      } catch (err) {
        if (attempt >= 20) throw err;
        await sleep(250);
      }
    }
  }

  private async pgTool(tool: string, args: string[]): Promise<string> {
    const path = join(this.bin, tool);
    const [file, argv] = this.asUser ? ['runuser', ['-u', this.asUser, '--', path, ...args]] : [path, args];
    const { stdout } = await run(file, argv, { timeout: 60_000 });
    return stdout;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
    await this.pgTool('pg_ctl', [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      this.dataDir,
      '-l',
      join(this.dir, 'log'),
      '-o',
      options,
    ]);
  }

  /** `pg_ctl stop -m fast`: every session is disconnected, new connections are refused. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.pgTool('pg_ctl', ['stop', '-w', '-t', '60', '-m', mode, '-D', this.dataDir]);
  }

  /** Stops the cluster if it runs, and removes its directory. */
  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
