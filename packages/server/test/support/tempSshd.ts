import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from './childServer.ts';

const run = promisify(execFile);
export const SSHD = '/usr/sbin/sshd';
export const sshdAvailable = () => existsSync(SSHD) && existsSync('/usr/bin/ssh-keygen');

export interface TempSshd {
  port: number;
  user: string;
  /** The folder the SFTP tests use (served as is: no chroot). */
  root: string;
  clientKeyFile: string;
  /** `SHA256:…` of the server's host key. */
  hostKeyFingerprint: string;
  /** The fingerprint of another key: what a server impersonating this one would show. */
  otherFingerprint: string;
  stop(): Promise<void>;
}

async function keygen(file: string): Promise<string> {
  await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'payrail-test', '-f', file]);
  const { stdout } = await run('/usr/bin/ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`]);
  return stdout.split(' ')[1] as string;
}

/**
 * A real OpenSSH server on a free loopback port, with its own host key, one authorized client key and the
 * internal SFTP subsystem: Debian's openssh-server (`sshd -D -f <own config>`), as the tests' user.
 */
export async function startSshd(): Promise<TempSshd> {
  const dir = await mkdtemp(join(tmpdir(), 'payrail-sshd-'));
  const root = join(dir, 'bank');
  await mkdir(root);
  const hostKeyFingerprint = await keygen(join(dir, 'host_key'));
  const otherFingerprint = await keygen(join(dir, 'other_key'));
  await keygen(join(dir, 'client_key'));
  await writeFile(join(dir, 'authorized_keys'), await readFile(join(dir, 'client_key.pub')));
  // Privilege separation needs this directory when sshd runs as root (CI).
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const user = userInfo().username;
  await writeFile(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'UsePAM no',
      'StrictModes no',
      `AllowUsers ${user}`,
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited: ${log}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (Date.now() > deadline) throw new Error(`sshd did not listen: ${log}`);
    await sleep(50);
  }
  return {
    port,
    user,
    root,
    clientKeyFile: join(dir, 'client_key'),
    hostKeyFingerprint,
    otherFingerprint,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
