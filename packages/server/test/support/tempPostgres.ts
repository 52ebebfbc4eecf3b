import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './childServer.ts';

const run = promisify(execFile);

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
