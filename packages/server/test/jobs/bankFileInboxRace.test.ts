import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankFileInbox } from '../../src/jobs/BankFileInbox.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { BankFileConnector } from '../../src/rails/bankfile/BankFileConnector.ts';
import { FolderTransport, isFileGone, type BankFolder } from '../../src/rails/bankfile/transport.ts';
import { ConnectorRegistry } from '../../src/rails/ConnectorRegistry.ts';
import { BankNotifications } from '../../src/services/BankNotifications.ts';
import { PayoutLifecycle } from '../../src/services/PayoutLifecycle.ts';
import { BankFileRepository } from '../../src/store/repositories/BankFileRepository.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { movableClock } from '../support/testClock.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

interface Line {
  level: 'debug' | 'info' | 'warn';
  obj: Record<string, unknown>;
  msg: string;
}

/**
 * Two instances on one bank folder (issue 33): both list the same inbox, the first takes each file, and the other
 * finds it gone. That is no failure: one debug line per file, no warning, no stack trace.
 */
describe('two inboxes on one folder', () => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-race-'));
    // The server's own loops wait a day: the test runs the scans itself.
    t = await startTestServer('pglite', {
      env: {
        ...BANKFILE_ENV,
        PAYRAIL_BANKFILE_DIR: dir,
        PAYRAIL_BANKFILE_CUTOFFS: 'every 24h',
        PAYRAIL_BANKFILE_SCAN: '24h',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const inboxOf = (transport: FolderTransport) => {
    const lines: Line[] = [];
    const keep = (level: Line['level']) => (obj: object, msg: string) =>
      lines.push({ level, obj: obj as Line['obj'], msg });
    const log = { debug: keep('debug'), info: keep('info'), warn: keep('warn') };
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

  it('the instance that loses the race logs one debug line per file, no warning and no stack', async () => {
    const winner = inboxOf(new FolderTransport(dir));
    /** The loser lists the inbox, and the winner takes every file before the loser reads one. */
    class Outrun extends FolderTransport {
      override async list(folder: BankFolder): Promise<string[]> {
        const names = await super.list(folder);
        if (folder === 'inbox' && names.length > 0) await winner.inbox.scan();
        return names;
      }
    }
    const loser = inboxOf(new Outrun(dir));
    await new FolderTransport(dir).prepare();
    await writeFile(join(dir, 'inbox', 'first.xml'), 'this is not a bank file');
    await writeFile(join(dir, 'inbox', 'second.xml'), 'nor is this');

    await loser.inbox.scan();

    // The winner read both (refused: not bank files) and moved them; each is recorded once.
    expect((await readdir(join(dir, 'failed'))).sort()).toEqual(['first.xml', 'second.xml']);
    const records = (await BankFileRepository.listInbound(t.db, 1000)).filter((f) =>
      /^(first|second)\.xml$/.test(f.name),
    );
    expect(records).toHaveLength(2);
    // The loser: one debug line per file, nothing louder, no `err` (what pino prints with its stack).
    expect(loser.lines.map((l) => [l.level, l.obj.file, l.msg])).toEqual([
      ['debug', 'first.xml', 'bank file taken by another instance; skipped'],
      ['debug', 'second.xml', 'bank file taken by another instance; skipped'],
    ]);
    expect(loser.lines.filter((l) => 'err' in l.obj)).toEqual([]);
  });

  it('knows a file gone from a folder and from an SFTP server, and nothing else', () => {
    expect(isFileGone(Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }))).toBe(true);
    // ssh2's status code for "no such file".
    expect(isFileGone(Object.assign(new Error('No such file'), { code: 2 }))).toBe(true);
    expect(isFileGone(Object.assign(new Error('Permission denied'), { code: 3 }))).toBe(false);
    expect(isFileGone(new Error('connection reset'))).toBe(false);
    expect(isFileGone(null)).toBe(false);
  });
});
