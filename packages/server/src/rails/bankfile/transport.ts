import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, open, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Readable } from 'node:stream';
import type SftpClient from 'ssh2-sftp-client';
import type { SftpSettings } from '../../bankFileConfig.ts';

/** The four folders of the exchange: Payrail writes outbox/, the bank writes inbox/. */
export const BANK_FOLDERS = ['outbox', 'inbox', 'processed', 'failed'] as const;
export type BankFolder = (typeof BANK_FOLDERS)[number];

/**
 * Where bank files go and come from: a local folder or the bank's SFTP server, behind the same few operations.
 * `write` puts the file under a temporary name and renames it when complete, so that the bank never reads half a
 * file. Names starting with a dot, or ending in .tmp or .part, are someone's file still being written: never listed.
 */
export interface BankFileTransport {
  /** For logs and the operator: the folder, or the sftp:// URL without credentials. */
  readonly description: string;
  /** Creates the four folders when missing. */
  prepare(): Promise<void>;
  /** The complete files of a folder, by name. */
  list(folder: BankFolder): Promise<string[]>;
  read(folder: BankFolder, name: string): Promise<Buffer>;
  /**
   * The file's bytes as they arrive, in chunks of about 64 KiB, so that a large file is never held whole. The file
   * is opened before this answers (a missing file rejects here); the caller reads to the end or destroys the stream.
   */
  readStream(folder: BankFolder, name: string): Promise<Readable>;
  /** The size in bytes, read before the file is (a file too large is refused unread). */
  size(folder: BankFolder, name: string): Promise<number>;
  write(folder: BankFolder, name: string, data: string | Buffer): Promise<void>;
  /** Moves a file to another folder; a name already there gets a suffix. Answers the name it got. */
  move(from: BankFolder, name: string, to: BankFolder): Promise<string>;
  close(): Promise<void>;
}

/**
 * Whether an error says the file is not there (a folder's ENOENT, SFTP's status 2): in the inbox, another instance
 * sharing the folder took it first (jobs/BankFileInbox.ts), which is no failure.
 */
export function isFileGone(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 2;
}

export const isCompleteName = (name: string) => !name.startsWith('.') && !/\.(tmp|part)$/i.test(name);

/** `file.xml` → `file.<hex>.xml`: the name a file gets when its own is taken in the destination. */
function suffixed(name: string): string {
  const dot = name.lastIndexOf('.');
  const tag = randomBytes(4).toString('hex');
  return dot > 0 ? `${name.slice(0, dot)}.${tag}${name.slice(dot)}` : `${name}.${tag}`;
}

/**
 * Whether a listed name can be read and moved: not one that would leave the folder (a `/` or `\`, `.` or `..`) nor
 * one holding a NUL. The bank writes the names, not Payrail: a folder may hold a file named `a\b.xml` and a bank's
 * SFTP server may list any name, so `list` answers such names too, for the inbox to report (jobs/BankFileInbox.ts).
 */
export const isUsableName = (name: string) =>
  name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\\') && !name.includes('\0');

/** Refuses names that would leave the folder. */
function checkName(name: string): void {
  if (!isUsableName(name)) throw new Error(`"${name}" is not a file name`);
}

export class FolderTransport implements BankFileTransport {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = root;
  }

  async prepare(): Promise<void> {
    for (const folder of BANK_FOLDERS) await mkdir(join(this.root, folder), { recursive: true });
  }

  async list(folder: BankFolder): Promise<string[]> {
    const entries = await readdir(join(this.root, folder), { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && isCompleteName(e.name))
      .map((e) => e.name)
      .sort();
  }

  read(folder: BankFolder, name: string): Promise<Buffer> {
    checkName(name);
    return readFile(join(this.root, folder, name));
  }

  async readStream(folder: BankFolder, name: string): Promise<Readable> {
    checkName(name);
    const file = await open(join(this.root, folder, name), 'r');
    // Closes the file at its end, on an error, or when destroyed.
    return file.createReadStream();
  }

  async size(folder: BankFolder, name: string): Promise<number> {
    checkName(name);
    return (await stat(join(this.root, folder, name))).size;
  }

  async write(folder: BankFolder, name: string, data: string | Buffer): Promise<void> {
    checkName(name);
    const temp = join(this.root, folder, `.${name}.${randomBytes(4).toString('hex')}.part`);
    await writeFile(temp, data, { flag: 'wx' });
    await rename(temp, join(this.root, folder, name));
  }

  async move(from: BankFolder, name: string, to: BankFolder): Promise<string> {
    checkName(name);
    const exists = await stat(join(this.root, to, name)).then(
      () => true,
      () => false,
    );
    const target = exists ? suffixed(name) : name;
    await rename(join(this.root, from, name), join(this.root, to, target));
    return target;
  }

  async close(): Promise<void> {}
}

/** The fingerprint `ssh-keygen -lf` prints for a host key: SHA256:<base64 without padding>. */
export function sshFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/**
 * The bank's SFTP server, with key authentication and the host key pinned: a server whose key has another
 * fingerprint is refused before anything is sent. One connection, opened when first needed and opened again
 * after an error.
 */
export class SftpTransport implements BankFileTransport {
  readonly description: string;
  private client: Promise<SftpClient> | null = null;
  /** The fingerprint of the last host key refused, for the error message. */
  private refusedKey: string | null = null;

  constructor(
    private readonly settings: SftpSettings,
    private readonly timeoutMs = 15_000,
  ) {
    this.description = `sftp://${settings.username}@${settings.host}:${settings.port}${settings.path}`;
  }

  private path(folder: BankFolder, name?: string): string {
    return name === undefined ? posix.join(this.settings.path, folder) : posix.join(this.settings.path, folder, name);
  }

  private connection(): Promise<SftpClient> {
    if (this.client) return this.client;
    // Callbacks of our own, so that the library does not print its default ones; a connection that ends or fails
    // is dropped, and the next call opens another.
    const drop = () => {
      if (this.client === connecting) this.client = null;
    };
    this.refusedKey = null;
    // Loaded when first needed: the SSH library instantiates WebAssembly of its own when loaded (about 13 MB resident),
    // which a server without an SFTP bank should not carry.
    const connecting = import('ssh2-sftp-client')
      .then(async ({ default: Client }) => {
        const client = new Client('payrail-bankfile', { end: drop, close: drop, error: drop });
        await client.connect({
          host: this.settings.host,
          port: this.settings.port,
          username: this.settings.username,
          privateKey: this.settings.privateKey,
          readyTimeout: this.timeoutMs,
          hostVerifier: (key: Buffer) => {
            const seen = sshFingerprint(key);
            if (seen === this.settings.hostKeyFingerprint) return true;
            this.refusedKey = seen;
            return false;
          },
        });
        return client;
      })
      .catch((err: Error) => {
        this.client = null;
        if (this.refusedKey) {
          throw new Error(
            `the SFTP server's host key ${this.refusedKey} is not PAYRAIL_BANKFILE_SFTP_HOST_KEY (${this.settings.hostKeyFingerprint}): refused`,
          );
        }
        throw err;
      });
    this.client = connecting;
    return connecting;
  }

  /** Runs `fn` on the connection; an error drops the connection so that the next call opens a new one. */
  private async use<T>(fn: (c: SftpClient) => Promise<T>): Promise<T> {
    const c = await this.connection();
    try {
      return await fn(c);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      // A file-level error (no such file: 2, permission: 3) leaves the connection fine.
      if (code !== 2 && code !== 3 && code !== 4 && code !== 'ENOENT') {
        this.client = null;
        await c.end().catch(() => undefined);
      }
      throw err;
    }
  }

  async prepare(): Promise<void> {
    await this.use(async (c) => {
      for (const folder of BANK_FOLDERS) {
        if (!(await c.exists(this.path(folder)))) await c.mkdir(this.path(folder), true);
      }
    });
  }

  list(folder: BankFolder): Promise<string[]> {
    return this.use(async (c) =>
      (await c.list(this.path(folder)))
        .filter((f) => f.type === '-' && isCompleteName(f.name))
        .map((f) => f.name)
        .sort(),
    );
  }

  read(folder: BankFolder, name: string): Promise<Buffer> {
    checkName(name);
    return this.use(async (c) => (await c.get(this.path(folder, name))) as Buffer);
  }

  readStream(folder: BankFolder, name: string): Promise<Readable> {
    checkName(name);
    // Opened within `use`, so that an error opening it is handled as any other call's. An error later, while the
    // bytes arrive, reaches the reader through the stream; a connection that ends is dropped by the client's own
    // callbacks (connection()).
    return this.use(async (c) => {
      const stream = c.createReadStream(this.path(folder, name)) as Readable;
      await once(stream, 'open');
      return stream;
    });
  }

  size(folder: BankFolder, name: string): Promise<number> {
    checkName(name);
    return this.use(async (c) => (await c.stat(this.path(folder, name))).size);
  }

  async write(folder: BankFolder, name: string, data: string | Buffer): Promise<void> {
    checkName(name);
    const temp = this.path(folder, `.${name}.${randomBytes(4).toString('hex')}.part`);
    await this.use(async (c) => {
      await c.put(Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'), temp);
      // posix-rename replaces a file left by an earlier delivery of the same bytes; plain SFTP rename would fail.
      await c.posixRename(temp, this.path(folder, name)).catch(() => c.rename(temp, this.path(folder, name)));
    });
  }

  async move(from: BankFolder, name: string, to: BankFolder): Promise<string> {
    checkName(name);
    return this.use(async (c) => {
      const target = (await c.exists(this.path(to, name))) ? suffixed(name) : name;
      await c.rename(this.path(from, name), this.path(to, target));
      return target;
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await (await client.catch(() => null))?.end().catch(() => undefined);
  }
}
