import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankFileSettings } from '../../src/bankFileConfig.ts';
import { BankFileInbox } from '../../src/jobs/BankFileInbox.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { BankFileConnector } from '../../src/rails/bankfile/BankFileConnector.ts';
import { FolderTransport, SftpTransport, type BankFileTransport } from '../../src/rails/bankfile/transport.ts';
import { ConnectorRegistry } from '../../src/rails/ConnectorRegistry.ts';
import { BankNotifications } from '../../src/services/BankNotifications.ts';
import { PayoutLifecycle } from '../../src/services/PayoutLifecycle.ts';
import { BankFileRepository } from '../../src/store/repositories/BankFileRepository.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { startInProcessSftp, type InProcessSftp } from '../support/inProcessSftp.ts';
import { movableClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

interface Line {
  level: 'info' | 'warn';
  obj: Record<string, unknown>;
  msg: string;
}

/**
 * A file in the inbox whose name no path can reach: one with a `\` in a folder, or one a bank's SFTP server lists
 * with a `/` or a NUL. It can be neither read nor moved to failed/, so it stays; it is recorded failed once, with
 * why, logged once without a stack trace, and skipped by every later scan (of this instance, or of another after a
 * restart), while the other files of the inbox are read as usual.
 */
describe.each(ENGINES)('an inbox file whose name is unusable (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let sftp: InProcessSftp;
  const transports: BankFileTransport[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-names-'));
    // The server's own loops wait a day: the test runs the scans itself.
    t = await startTestServer(engine, {
      env: {
        ...BANKFILE_ENV,
        PAYRAIL_BANKFILE_DIR: dir,
        PAYRAIL_BANKFILE_CUTOFFS: 'every 24h',
        PAYRAIL_BANKFILE_SCAN: '24h',
      },
    });
    // What a bank's server might list: a file of its disk under a name that no path reaches.
    sftp = await startInProcessSftp({
      listedName: (name) => ({ 'a_b.xml': 'a/b.xml', 'nul.xml': 'nul\0.xml' })[name] ?? name,
    });
  });

  afterAll(async () => {
    for (const transport of transports) await transport.close();
    await t?.close();
    await sftp?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** An inbox as the server builds it, reading `transport`, with its log lines kept. */
  const inboxOf = (transport: BankFileTransport) => {
    transports.push(transport);
    const lines: Line[] = [];
    const log = {
      info: (obj: object, msg: string) => lines.push({ level: 'info', obj: obj as Line['obj'], msg }),
      warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Line['obj'], msg }),
    };
    const clock = movableClock();
    const connector = new BankFileConnector(t.config.connectors.bankfile!, transport);
    const lifecycle = new PayoutLifecycle(new ConnectorRegistry([connector], 'bankfile'), new Metrics(), {
      refundDelayMs: 60_000,
      clock,
    });
    const inbox = new BankFileInbox(
      t.db,
      lifecycle,
      new BankNotifications(t.db, lifecycle, clock),
      null,
      transport,
      86_400_000,
      log,
      clock,
    );
    return { inbox, lines };
  };

  const recorded = async (name: string) =>
    (await BankFileRepository.listInbound(t.db, 1000)).filter((f) => f.name === name);

  /** The log lines that name the file in their fields. */
  const about = (lines: Line[], name: string) =>
    lines.filter((l) => JSON.stringify(l.obj).includes(JSON.stringify(name).slice(1, -1)));

  it('in a folder: a name with a backslash is recorded failed and logged once, then skipped', async () => {
    const odd = 'odd\\name.xml';
    const transport = new FolderTransport(dir);
    await transport.prepare();
    await writeFile(join(dir, 'inbox', odd), 'not read');
    await writeFile(join(dir, 'inbox', 'garbage.xml'), 'this is not a bank file');
    const { inbox, lines } = inboxOf(transport);
    for (let i = 0; i < 3; i++) await inbox.scan();

    const records = await recorded(odd);
    expect(records).toHaveLength(1);
    expect(records[0]?.state).toBe('failed');
    expect(records[0]?.reason).toMatch(/not a usable file name/);
    const logged = about(lines, odd);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.level).toBe('warn');
    // An `err` field is what pino prints with its stack trace.
    expect(logged[0]?.obj).not.toHaveProperty('err');
    // It stays where the bank put it; the other file was read as usual.
    expect(await readdir(join(dir, 'inbox'))).toEqual([odd]);
    expect(await readdir(join(dir, 'failed'))).toEqual(['garbage.xml']);

    // Another instance (or this one after a restart) knows it: no second record, no second line.
    const again = inboxOf(new FolderTransport(dir));
    await again.inbox.scan();
    expect(await recorded(odd)).toHaveLength(1);
    expect(about(again.lines, odd)).toEqual([]);
  });

  it('over SFTP: names listed with a / or a NUL are recorded failed and logged once, then skipped', async () => {
    const env = {
      ...BANKFILE_ENV,
      PAYRAIL_BANKFILE_SFTP_URL: `sftp://${sftp.user}@127.0.0.1:${sftp.port}${sftp.root}`,
      PAYRAIL_BANKFILE_SFTP_KEY_FILE: sftp.clientKeyFile,
      PAYRAIL_BANKFILE_SFTP_HOST_KEY: sftp.hostKeyFingerprint,
    };
    const transport = new SftpTransport(bankFileSettings(env).sftp!);
    await transport.prepare();
    await writeFile(join(sftp.root, 'inbox', 'a_b.xml'), 'not read');
    await writeFile(join(sftp.root, 'inbox', 'nul.xml'), 'not read');
    const { inbox, lines } = inboxOf(transport);
    for (let i = 0; i < 3; i++) await inbox.scan();

    const slash = await recorded('a/b.xml');
    expect(slash).toHaveLength(1);
    expect(slash[0]?.state).toBe('failed');
    expect(slash[0]?.reason).toMatch(/not a usable file name/);
    // A database text cannot hold a NUL: the record shows it escaped.
    const nul = await recorded('nul\\0.xml');
    expect(nul).toHaveLength(1);
    expect(nul[0]?.state).toBe('failed');
    expect(about(lines, 'a/b.xml')).toHaveLength(1);
    expect(about(lines, 'nul\0.xml')).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'warn').every((l) => !('err' in l.obj))).toBe(true);
    expect((await readdir(join(sftp.root, 'inbox'))).sort()).toEqual(['a_b.xml', 'nul.xml']);
  });
});
