import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort } from './childServer.ts';

export const PGBOUNCER = '/usr/sbin/pgbouncer';
export const hasPgBouncer = () => existsSync(PGBOUNCER);

/**
 * A PgBouncer of the test's own (Debian's, 1.18 here) in transaction mode, in front of one database of the
 * machine's PostgreSQL. `poolSize` server connections serve every client, so a client's transactions land on
 * whichever connection is free: what breaks session state such as named prepared statements. PgBouncer refuses
 * to run as root, so as root it runs as the `postgres` system user.
 */
export class TempPgBouncer {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly child: ChildProcess,
  ) {}

  /** A URL of the pooled database through the bouncer. */
  url(user: string): string {
    return `postgres://${user}@127.0.0.1:${this.port}/pooled`;
  }

  static async start(target: { host: string; port: number; database: string; user: string }, poolSize = 3) {
    const dir = await mkdtemp(join(tmpdir(), 'payrail-pgbouncer-'));
    const port = await freePort();
    await writeFile(join(dir, 'users.txt'), `"${target.user}" ""\n`);
    await writeFile(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `pooled = host=${target.host} port=${target.port} dbname=${target.database} user=${target.user}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 500',
        // pg sends these at connect; 1.18 refuses unknown startup parameters (and applies none of them).
        'ignore_startup_parameters = extra_float_digits,options,statement_timeout',
        `logfile = ${join(dir, 'pgbouncer.log')}`,
        '',
      ].join('\n'),
    );
    const asPostgres = process.getuid?.() === 0;
    if (asPostgres) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      for (const f of ['', 'users.txt', 'pgbouncer.ini']) await chown(join(dir, f), uid, gid);
    }
    const ini = join(dir, 'pgbouncer.ini');
    const child = spawn(PGBOUNCER, asPostgres ? ['-u', 'postgres', ini] : [ini], { stdio: 'ignore' });
    const bouncer = new TempPgBouncer(dir, port, child);
    await bouncer.waitListening();
    return bouncer;
  }

  private async waitListening(): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const ok = await new Promise<boolean>((resolve) => {
        const socket = connect(this.port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`pgbouncer did not start:\n${await this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  log(): Promise<string> {
    return readFile(join(this.dir, 'pgbouncer.log'), 'utf8').catch(() => '');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
