import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join, posix } from 'node:path';
import ssh2, { type Attributes, type Connection, type FileEntry, type ParsedKey, type SFTPWrapper } from 'ssh2';
import type { TempSshd } from './tempSshd.ts';

const { Server, utils } = ssh2;
const { STATUS_CODE } = utils.sftp;

/** The same shape as the OpenSSH server's (tempSshd.ts), so that one test body runs against either. */
export type InProcessSftp = TempSshd;

export interface InProcessSftpOptions {
  /**
   * The name a directory listing shows for a file of the folder. A real server lists what is on its disk; a bank's
   * server (not OpenSSH) may list names no path can reach, such as one with a `/`: what this lets a test play.
   */
  listedName?: (name: string) => string;
}

function parse(key: string | Buffer): ParsedKey {
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  return parsed;
}

/**
 * An ed25519 key pair in OpenSSH form that ssh2 itself can read back. ssh2's generateKeyPairSync drops a leading zero
 * byte of the 32-byte public key (about one key in 256: "Malformed OpenSSH public key" when parsed, public and
 * private alike), which failed a CI run; such a pair is made again.
 */
export function sshKeyPair(comment = 'payrail-test'): { private: string; public: string } {
  for (;;) {
    const keys = utils.generateKeyPairSync('ed25519', { comment });
    if (!(utils.parseKey(keys.public) instanceof Error) && !(utils.parseKey(keys.private) instanceof Error)) {
      return keys;
    }
  }
}

/** An ed25519 key pair, and the fingerprint `ssh-keygen -lf` prints for its public key. */
function keyPair(): { privateKey: string; publicKey: ParsedKey; fingerprint: string } {
  const keys = sshKeyPair();
  const publicKey = parse(keys.public);
  const digest = createHash('sha256').update(publicKey.getPublicSSH()).digest('base64');
  return { privateKey: keys.private, publicKey, fingerprint: `SHA256:${digest.replace(/=+$/, '')}` };
}

/** The status an SFTP server answers for a file-system error (OpenSSH's mapping of errno). */
function statusOf(err: unknown): number {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return STATUS_CODE.NO_SUCH_FILE;
  if (code === 'EACCES' || code === 'EPERM') return STATUS_CODE.PERMISSION_DENIED;
  return STATUS_CODE.FAILURE;
}

function attrsOf(s: Stats): Attributes {
  return {
    mode: s.mode,
    uid: s.uid,
    gid: s.gid,
    size: s.size,
    atime: Math.floor(s.atimeMs / 1000),
    mtime: Math.floor(s.mtimeMs / 1000),
  };
}

/** `-rw-r--r-- 1 0 0 42 Jan 1 00:00 name`: the client reads an entry's type and rights from its first ten characters. */
function longname(name: string, s: Stats): string {
  const type = s.isDirectory() ? 'd' : s.isSymbolicLink() ? 'l' : s.isFile() ? '-' : '?';
  const rights = [6, 3, 0]
    .map((shift) => {
      const bits = (s.mode >> shift) & 7;
      return `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${bits & 1 ? 'x' : '-'}`;
    })
    .join('');
  return `${type}${rights} 1 ${s.uid} ${s.gid} ${s.size} Jan 1 00:00 ${name}`;
}

type Handle = { kind: 'file'; file: FileHandle } | { kind: 'dir'; path: string; done: boolean };

/**
 * The SFTP subsystem over the folder `root`: every path is the real one (as OpenSSH's internal-sftp without a
 * chroot serves it), and a path outside `root` is refused. What the operations do on the disk is what OpenSSH
 * does: RENAME refuses an existing target (SFTP v3), which is why the transport prefers posix-rename; ssh2's
 * server mode advertises no extensions, so the client falls back to RENAME here.
 */
function serveSftp(sftp: SFTPWrapper, root: string, options: InProcessSftpOptions): void {
  const handles = new Map<number, Handle>();
  let nextHandle = 0;
  const local = (path: string): string | null => {
    const abs = posix.resolve(root, path);
    return abs === root || abs.startsWith(`${root}/`) ? abs : null;
  };
  const handleOf = (raw: Buffer): Handle | undefined =>
    raw.length === 4 ? handles.get(raw.readUInt32BE(0)) : undefined;
  const newHandle = (h: Handle): Buffer => {
    const id = nextHandle++;
    handles.set(id, h);
    const raw = Buffer.alloc(4);
    raw.writeUInt32BE(id, 0);
    return raw;
  };
  /** Runs one request; a file-system error becomes its SFTP status, as a server answers it. */
  const answer = (reqid: number, work: () => Promise<void>) => {
    work().catch((err: unknown) => {
      // The channel may have closed while the request ran (a client that left): nothing to answer then.
      try {
        sftp.status(reqid, statusOf(err), (err as Error).message);
      } catch {
        /* closed */
      }
    });
  };
  const withPath = (reqid: number, path: string, work: (abs: string) => Promise<void>) =>
    answer(reqid, async () => {
      const abs = local(path);
      if (abs === null)
        return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED, `${path} is outside the served folder`);
      await work(abs);
    });
  const ok = (reqid: number) => sftp.status(reqid, STATUS_CODE.OK);

  sftp
    .on('REALPATH', (reqid, path) =>
      withPath(reqid, path, async (abs) =>
        sftp.name(reqid, [{ filename: abs, longname: abs, attrs: {} as Attributes }]),
      ),
    )
    .on('STAT', (reqid, path) => withPath(reqid, path, async (abs) => sftp.attrs(reqid, attrsOf(await stat(abs)))))
    .on('LSTAT', (reqid, path) => withPath(reqid, path, async (abs) => sftp.attrs(reqid, attrsOf(await lstat(abs)))))
    .on('FSTAT', (reqid, raw) =>
      answer(reqid, async () => {
        const h = handleOf(raw);
        if (h?.kind !== 'file') return sftp.status(reqid, STATUS_CODE.FAILURE, 'bad handle');
        sftp.attrs(reqid, attrsOf(await h.file.stat()));
      }),
    )
    .on('SETSTAT', (reqid, path, attrs) =>
      withPath(reqid, path, async (abs) => {
        if (typeof attrs.mode === 'number') await chmod(abs, attrs.mode & 0o7777);
        ok(reqid);
      }),
    )
    .on('FSETSTAT', (reqid, raw, attrs) =>
      answer(reqid, async () => {
        const h = handleOf(raw);
        if (h?.kind !== 'file') return sftp.status(reqid, STATUS_CODE.FAILURE, 'bad handle');
        if (typeof attrs.mode === 'number') await h.file.chmod(attrs.mode & 0o7777);
        ok(reqid);
      }),
    )
    .on('OPEN', (reqid, path, flags, attrs) =>
      withPath(reqid, path, async (abs) => {
        const mode = typeof attrs.mode === 'number' ? attrs.mode & 0o7777 : 0o644;
        const file = await open(abs, utils.sftp.flagsToString(flags) ?? 'r', mode);
        sftp.handle(reqid, newHandle({ kind: 'file', file }));
      }),
    )
    .on('READ', (reqid, raw, offset, length) =>
      answer(reqid, async () => {
        const h = handleOf(raw);
        if (h?.kind !== 'file') return sftp.status(reqid, STATUS_CODE.FAILURE, 'bad handle');
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await h.file.read(buffer, 0, length, offset);
        if (bytesRead === 0) sftp.status(reqid, STATUS_CODE.EOF);
        else sftp.data(reqid, buffer.subarray(0, bytesRead));
      }),
    )
    .on('WRITE', (reqid, raw, offset, data) =>
      answer(reqid, async () => {
        const h = handleOf(raw);
        if (h?.kind !== 'file') return sftp.status(reqid, STATUS_CODE.FAILURE, 'bad handle');
        await h.file.write(data, 0, data.length, offset);
        ok(reqid);
      }),
    )
    .on('CLOSE', (reqid, raw) =>
      answer(reqid, async () => {
        const h = handleOf(raw);
        if (!h) return sftp.status(reqid, STATUS_CODE.FAILURE, 'bad handle');
        handles.delete(raw.readUInt32BE(0));
        if (h.kind === 'file') await h.file.close();
        ok(reqid);
      }),
    )
    .on('OPENDIR', (reqid, path) =>
      withPath(reqid, path, async (abs) => {
        if (!(await stat(abs)).isDirectory())
          return sftp.status(reqid, STATUS_CODE.FAILURE, `${path}: not a directory`);
        sftp.handle(reqid, newHandle({ kind: 'dir', path: abs, done: false }));
      }),
    )
    .on('READDIR', (reqid, raw) =>
      answer(reqid, async () => {
        const h = handleOf(raw);
        if (h?.kind !== 'dir') return sftp.status(reqid, STATUS_CODE.FAILURE, 'bad handle');
        // The whole folder in one answer, then EOF, as a small folder reads from OpenSSH.
        if (h.done) return sftp.status(reqid, STATUS_CODE.EOF);
        h.done = true;
        const entries: FileEntry[] = [];
        for (const name of ['.', '..', ...(await readdir(h.path))]) {
          const s = await lstat(join(h.path, name));
          const shown = name === '.' || name === '..' ? name : (options.listedName?.(name) ?? name);
          entries.push({ filename: shown, longname: longname(shown, s), attrs: attrsOf(s) });
        }
        sftp.name(reqid, entries);
      }),
    )
    .on('MKDIR', (reqid, path, attrs) =>
      withPath(reqid, path, async (abs) => {
        await mkdir(abs, typeof attrs.mode === 'number' ? attrs.mode & 0o7777 : 0o755);
        ok(reqid);
      }),
    )
    .on('RMDIR', (reqid, path) =>
      withPath(reqid, path, async (abs) => {
        await rmdir(abs);
        ok(reqid);
      }),
    )
    .on('REMOVE', (reqid, path) =>
      withPath(reqid, path, async (abs) => {
        await unlink(abs);
        ok(reqid);
      }),
    )
    .on('RENAME', (reqid, from, to) =>
      answer(reqid, async () => {
        const source = local(from);
        const target = local(to);
        if (source === null || target === null) {
          return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED, 'outside the served folder');
        }
        // SFTP v3 rename never replaces (OpenSSH links, then unlinks): an existing target is a failure.
        const taken = await lstat(target).then(
          () => true,
          () => false,
        );
        if (taken) return sftp.status(reqid, STATUS_CODE.FAILURE, `${to} exists`);
        await rename(source, target);
        ok(reqid);
      }),
    )
    .on('close', () => {
      for (const h of handles.values()) if (h.kind === 'file') void h.file.close().catch(() => undefined);
      handles.clear();
    });
}

/**
 * An SFTP server in this process, built on the `ssh2` package's Server: nothing to install, so the SFTP transport is
 * tested on any machine with Node alone. Like the OpenSSH one (tempSshd.ts) it listens on a free loopback port with
 * a host key of its own, accepts one user with one ed25519 key (public-key authentication only, the signature
 * verified), and serves a temporary folder.
 */
export async function startInProcessSftp(options: InProcessSftpOptions = {}): Promise<InProcessSftp> {
  const dir = await mkdtemp(join(tmpdir(), 'payrail-sftp-'));
  const root = join(dir, 'bank');
  await mkdir(root);
  const host = keyPair();
  const other = keyPair();
  const client = keyPair();
  const clientKeyFile = join(dir, 'client_key');
  await writeFile(clientKeyFile, client.privateKey, { mode: 0o600 });
  const user = userInfo().username;
  const connections = new Set<Connection>();

  const server = new Server({ hostKeys: [host.privateKey] }, (connection) => {
    connections.add(connection);
    // A client that leaves (or refuses the host key) resets the socket: not this server's error.
    connection.on('error', () => undefined);
    connection.on('close', () => connections.delete(connection));
    connection.on('authentication', (ctx) => {
      const wanted = client.publicKey;
      if (
        ctx.method !== 'publickey' ||
        ctx.username !== user ||
        ctx.key.algo !== wanted.type ||
        !ctx.key.data.equals(wanted.getPublicSSH())
      ) {
        return ctx.reject(['publickey']);
      }
      // Without a signature the client only asks whether this key would do; with one, it must prove it holds it.
      if (ctx.signature && (!ctx.blob || wanted.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true)) {
        return ctx.reject(['publickey']);
      }
      ctx.accept();
    });
    connection.on('ready', () => {
      connection.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (acceptSftp) => serveSftp(acceptSftp(), root, options));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    user,
    root,
    clientKeyFile,
    hostKeyFingerprint: host.fingerprint,
    otherFingerprint: other.fingerprint,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of connections) c.end();
      await closed;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
