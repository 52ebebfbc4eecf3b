import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.ts';
import { BankFileInbox } from '../../../src/jobs/BankFileInbox.ts';
import { Metrics } from '../../../src/observability/Metrics.ts';
import {
  Camt054Reader,
  readCamt054,
  readCamt054Stream,
  type Notification,
} from '../../../src/rails/bankfile/camt054.ts';
import { BankFileConnector } from '../../../src/rails/bankfile/BankFileConnector.ts';
import { FolderTransport, SftpTransport } from '../../../src/rails/bankfile/transport.ts';
import { BankFileUnreadable } from '../../../src/rails/bankfile/xmlRead.ts';
import { ConnectorRegistry } from '../../../src/rails/ConnectorRegistry.ts';
import { BankNotifications } from '../../../src/services/BankNotifications.ts';
import { PayoutLifecycle } from '../../../src/services/PayoutLifecycle.ts';
import { bankFileSettings } from '../../../src/bankFileConfig.ts';
import { BANKFILE_ENV } from '../../support/bankFiles.ts';
import { sshdAvailable, startSshd, type TempSshd } from '../../support/tempSshd.ts';
import { ENGINES, startTestServer, type TestServer } from '../../support/testServer.ts';

const NS = 'urn:iso:std:iso:20022:tech:xsd:camt.054.001.08';

const camt054 = (entries: string, msgId = 'N-1') => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="${NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><BkToCstmrDbtCdtNtfctn>
  <GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>2026-11-25T10:00:00+05:30</CreDtTm></GrpHdr>
  <Ntfctn><Id>N</Id><Acct><Id><Othr><Id>50100012345678</Id></Othr></Id></Acct>
${entries}
  </Ntfctn>
</BkToCstmrDbtCdtNtfctn></Document>
`;

const ntry = (amount: string, direction: string, inner: string, status = '<Sts><Cd>BOOK</Cd></Sts>') =>
  `<Ntry><Amt Ccy="INR">${amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd>${status}${inner}</Ntry>\n`;

/** Six entries of every shape the inbox reads, with text beyond ASCII (multi-byte UTF-8) in the names. */
const ENTRIES =
  // A payout booked, with its UTR, the amount above 2^53 paise (no floating point could hold it).
  ntry(
    '9999999999999999.99',
    'DBIT',
    `<AcctSvcrRef>AS-1</AcctSvcrRef><BkTxCd><Prtry><Cd>NEFT</Cd></Prtry></BkTxCd>
     <NtryDtls><TxDtls><Refs><EndToEndId>PT01JD0000000000000000000001</EndToEndId><ClrSysRef>123456789012</ClrSysRef></Refs>
     <RltdPties><Cdtr><Pty><Nm>Śrī Gaṇeśa Traders — ₹ payee</Nm></Pty></Cdtr></RltdPties></TxDtls></NtryDtls>`,
  ) +
  // A return, with its reason and two lines of information (one with an escaped character).
  ntry(
    '10.5',
    'CRDT',
    `<AcctSvcrRef>AS-2</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>PT01JD0000000000000000000002</EndToEndId></Refs>
     <RtrInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Konto geschlossen – Rückgabe</AddtlInf><AddtlInf>a &lt; b &amp; c</AddtlInf></RtrInf>
     </TxDtls></NtryDtls>`,
  ) +
  // Bank charges: no transaction details, the entry is the transaction.
  ntry('0.01', 'DBIT', '<AcctSvcrRef>CHG-1</AcctSvcrRef><AddtlNtryInf>Charges</AddtlNtryInf>') +
  // Two transactions in one entry, each with its own amount (trailing zeros of a paisa are exact).
  ntry(
    '300.00',
    'DBIT',
    `<NtryDtls><TxDtls><Amt Ccy="INR">100.000</Amt><Refs><EndToEndId>E-A</EndToEndId><AcctSvcrRef>TX-A</AcctSvcrRef></Refs></TxDtls>
     <TxDtls><Amt Ccy="INR">200</Amt><CdtDbtInd>CRDT</CdtDbtInd><Refs><EndToEndId>E-B</EndToEndId></Refs></TxDtls></NtryDtls>`,
  ) +
  // Pending, in the older form of the status.
  ntry(
    '42.42',
    'DBIT',
    '<NtryDtls><TxDtls><Refs><EndToEndId>E-P</EndToEndId></Refs></TxDtls></NtryDtls>',
    '<Sts>PDNG</Sts>',
  ) +
  // A return whose reason is proprietary.
  ntry(
    '7.00',
    'CRDT',
    '<NtryDtls><TxDtls><Refs><EndToEndId>E-R</EndToEndId></Refs><RtrInf><Rsn><Prtry>X99</Prtry></Rsn></RtrInf></TxDtls></NtryDtls>',
  );

const tx = (over: Partial<Notification['transactions'][number]>) => ({
  direction: 'DBIT',
  entryStatus: 'BOOK',
  currency: 'INR',
  endToEndId: null,
  clearingReference: null,
  accountServicerReference: null,
  isReturn: false,
  returnReasonCode: null,
  returnAdditionalInfo: null,
  ...over,
});

const EXPECTED: Notification = {
  msgId: 'N-1',
  transactions: [
    tx({
      amount: 999_999_999_999_999_999n,
      endToEndId: 'PT01JD0000000000000000000001',
      clearingReference: '123456789012',
      accountServicerReference: 'AS-1',
    }),
    tx({
      direction: 'CRDT',
      amount: 1050n,
      endToEndId: 'PT01JD0000000000000000000002',
      accountServicerReference: 'AS-2',
      isReturn: true,
      returnReasonCode: 'AC04',
      returnAdditionalInfo: 'Konto geschlossen – Rückgabe a < b & c',
    }),
    tx({ amount: 1n, accountServicerReference: 'CHG-1' }),
    tx({ amount: 10_000n, endToEndId: 'E-A', accountServicerReference: 'TX-A' }),
    // A credit that is not a return carries the parties a deposit is read from (none named in this file).
    tx({
      direction: 'CRDT',
      amount: 20_000n,
      endToEndId: 'E-B',
      parties: {
        creditorAccount: null,
        remittance: null,
        remitterAccount: null,
        remitterIfsc: null,
        remitterName: null,
      },
    }),
    tx({ entryStatus: 'PDNG', amount: 4242n, endToEndId: 'E-P' }),
    tx({ direction: 'CRDT', amount: 700n, endToEndId: 'E-R', isReturn: true, returnReasonCode: 'X99' }),
  ] as Notification['transactions'],
};

/** The bytes cut at `cuts` (ascending offsets), as a stream would bring them. */
function* chunks(bytes: Buffer, cuts: number[]): Generator<Buffer> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(at, cut);
    at = cut;
  }
}

const readChunks = (bytes: Buffer, cuts: number[]) => {
  const reader = new Camt054Reader();
  for (const chunk of chunks(bytes, cuts)) reader.write(chunk);
  return reader.end();
};

const refusal = (bytes: Buffer | string, cuts: number[] = []): string => {
  try {
    readChunks(Buffer.from(bytes), cuts);
  } catch (err) {
    expect(err).toBeInstanceOf(BankFileUnreadable);
    return (err as Error).message;
  }
  throw new Error('read, not refused');
};

describe('the streaming camt.054 reader', () => {
  const file = Buffer.from(camt054(ENTRIES));

  it('reads every transaction of a multi-entry file, amounts exact in paise', async () => {
    expect(readCamt054(file)).toEqual(EXPECTED);
    expect(await readCamt054Stream([file])).toEqual(EXPECTED);
    expect(typeof EXPECTED.transactions[0]?.amount).toBe('bigint');
  });

  it('reads the same wherever the chunks end: inside a tag, a name, an amount, a multi-byte character', () => {
    // Every single cut, then one-byte chunks.
    for (let cut = 1; cut < file.length; cut++) expect(readChunks(file, [cut])).toEqual(EXPECTED);
    expect(
      readChunks(
        file,
        Array.from({ length: file.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(EXPECTED);
    // The cuts fall inside UTF-8 sequences too: "₹" is three bytes.
    const rupee = file.indexOf('₹');
    expect(readChunks(file, [rupee + 1, rupee + 2])).toEqual(EXPECTED);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: file.length - 1 }), { maxLength: 40 }), (cuts) => {
        expect(
          readChunks(
            file,
            cuts.sort((a, b) => a - b),
          ),
        ).toEqual(EXPECTED);
      }),
      { numRuns: 200 },
    );
  });

  it('reads a namespace prefix, a byte order mark and white space before the declaration', () => {
    const prefixed = Buffer.from(
      `\uFEFF \n<n:Document xmlns:n="${NS}"><n:BkToCstmrDbtCdtNtfctn><n:GrpHdr><n:MsgId>P</n:MsgId></n:GrpHdr>` +
        `<n:Ntfctn><n:Ntry><n:Amt n:Ccy="INR">1</n:Amt><n:CdtDbtInd>DBIT</n:CdtDbtInd><n:Sts><n:Cd>BOOK</n:Cd></n:Sts>` +
        `</n:Ntry></n:Ntfctn></n:BkToCstmrDbtCdtNtfctn></n:Document>`,
    );
    expect(readCamt054(prefixed)).toEqual({ msgId: 'P', transactions: [tx({ amount: 100n })] });
  });

  it('refuses malformed input with the reason, wherever the chunks end', () => {
    const amount = (a: string) => camt054(ntry(a, 'DBIT', ''));
    const cases: [string, RegExp][] = [
      ['', /^the file is empty$/],
      ['hello', /^not XML$/],
      [' \n\t', /^not XML$/],
      ['<a/>', /no urn:iso:std:iso:20022 namespace/],
      [
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"/>',
        /^pain\.002\.001\.11 is not a message Payrail reads/,
      ],
      [`<!DOCTYPE d [<!ENTITY a "aaaa">]><Document xmlns="${NS}">&a;</Document>`, /DOCTYPE or ENTITY/],
      [camt054(ENTRIES).slice(0, -40), /^not well-formed XML: .*\(line \d+, column \d+\)$/],
      [camt054(ENTRIES).replace('</Amt>', '</Amount>'), /^not well-formed XML/],
      [camt054(ENTRIES).replace('<Ntfctn>', '<Ntfctn a="1" a="2">'), /^not well-formed XML/],
      [amount('1e5'), /^Ntry 1\/Amt: "1e5" is not an amount$/],
      [amount('-5.00'), /^Ntry 1\/Amt: "-5.00" is not an amount$/],
      [amount('1.001'), /^Ntry 1\/Amt: 1\.001 has fractions of a paisa$/],
      [amount(''), /^Ntry 1\/Amt: "" is not an amount$/],
      [camt054(ENTRIES + ntry('1', 'DBIT', '').replace(' Ccy="INR"', '')), /^Ntry 7\/Amt has no currency$/],
      [camt054(ntry('1', 'SIDEWAYS', '')), /^Ntry 1: CdtDbtInd "SIDEWAYS" is neither CRDT nor DBIT$/],
      [camt054(ntry('1', 'DBIT', '', '')), /^Ntry 1: Sts is missing$/],
      [
        camt054(ntry('1', 'DBIT', '<NtryDtls><TxDtls><CdtDbtInd>UP</CdtDbtInd></TxDtls></NtryDtls>')),
        /^TxDtls\/CdtDbtInd "UP" is neither CRDT nor DBIT$/,
      ],
      [
        camt054(ntry('3', 'DBIT', '<NtryDtls><TxDtls><Refs/></TxDtls><TxDtls><Refs/></TxDtls></NtryDtls>')),
        /^Ntry 1: an entry of several transactions needs TxDtls\/Amt on each$/,
      ],
      [camt054(ENTRIES).replace(/<MsgId>N-1<\/MsgId>/, ''), /^GrpHdr\/MsgId is missing$/],
      [
        `<Document xmlns="${NS}"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>M</MsgId></GrpHdr></BkToCstmrDbtCdtNtfctn></Document>`,
        /^no Ntfctn element$/,
      ],
      [`<Document xmlns="${NS}"><Other/></Document>`, /^no BkToCstmrDbtCdtNtfctn element$/],
      [`<Report xmlns="${NS}"/>`, /^no Document element$/],
      [`<Document xmlns="${NS}">${'<a>'.repeat(50)}${'</a>'.repeat(50)}</Document>`, /nested deeper than 40 levels/],
    ];
    for (const [input, why] of cases) {
      const bytes = Buffer.from(input);
      expect(refusal(bytes), input.slice(0, 80)).toMatch(why);
      if (bytes.length > 2) {
        for (const cut of [1, Math.floor(bytes.length / 2), bytes.length - 1]) {
          expect(refusal(bytes, [cut]), `${input.slice(0, 80)} cut at ${cut}`).toMatch(why);
        }
      }
    }
  });

  it('refuses a DOCTYPE split across two chunks before the parser reads it', () => {
    const bomb = Buffer.from(
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><Document xmlns="${NS}"/>`,
    );
    for (let cut = 1; cut < bomb.length; cut++) expect(refusal(bomb, [cut])).toMatch(/DOCTYPE or ENTITY/);
  });

  it('refuses more bytes than its limit, and takes nothing after a refusal', async () => {
    await expect(readCamt054Stream([file.subarray(0, 100), file.subarray(100)], 200)).rejects.toThrow(
      /larger than 200 bytes/,
    );
    const reader = new Camt054Reader();
    expect(() => reader.write(Buffer.from('not xml'))).toThrow(/not XML/);
    expect(() => reader.write(file)).toThrow(/not XML/);
    expect(() => reader.end()).toThrow(/not XML/);
  });

  it('never crashes on mutated input: it reads it or refuses it with BankFileUnreadable', () => {
    const text = camt054(ENTRIES);
    fc.assert(
      fc.property(
        fc.nat(text.length),
        fc.nat(text.length),
        fc.string({ maxLength: 30 }),
        fc.nat(text.length),
        (a, b, s, cut) => {
          const bytes = Buffer.from(text.slice(0, Math.min(a, b)) + s + text.slice(Math.max(a, b)));
          try {
            expect(readChunks(bytes, cut > 0 && cut < bytes.length ? [cut] : [])).toBeTypeOf('object');
          } catch (err) {
            expect(err).toBeInstanceOf(BankFileUnreadable);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('a transport read as a stream', () => {
  const content = Buffer.alloc(300_000);
  for (let i = 0; i < content.length; i++) content[i] = (i * 7919) % 251;

  async function readAll(stream: AsyncIterable<Buffer>): Promise<{ bytes: Buffer; chunks: number }> {
    const parts: Buffer[] = [];
    for await (const chunk of stream) parts.push(chunk);
    return { bytes: Buffer.concat(parts), chunks: parts.length };
  }

  it('brings a folder file in chunks, and refuses a missing one when asked', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payrail-stream-'));
    try {
      const transport = new FolderTransport(dir);
      await transport.prepare();
      await writeFile(join(dir, 'inbox', 'big.bin'), content);
      const read = await readAll(await transport.readStream('inbox', 'big.bin'));
      expect(read.bytes.equals(content)).toBe(true);
      expect(read.chunks).toBeGreaterThan(1);
      await expect(transport.readStream('inbox', 'missing.xml')).rejects.toThrow(/ENOENT/);
      await expect(transport.readStream('inbox', '../outbox/x')).rejects.toThrow(/not a file name/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe.runIf(sshdAvailable())('over SFTP (OpenSSH)', () => {
    let sshd: TempSshd;
    beforeAll(async () => {
      sshd = await startSshd();
    });
    afterAll(async () => {
      await sshd?.stop();
    });

    it('brings an SFTP file in chunks, and refuses a missing one with the connection kept', async () => {
      const transport = new SftpTransport(
        bankFileSettings({
          ...BANKFILE_ENV,
          PAYRAIL_BANKFILE_SFTP_URL: `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}`,
          PAYRAIL_BANKFILE_SFTP_KEY_FILE: sshd.clientKeyFile,
          PAYRAIL_BANKFILE_SFTP_HOST_KEY: sshd.hostKeyFingerprint,
        }).sftp!,
      );
      try {
        await transport.prepare();
        await transport.write('inbox', 'big.bin', content);
        const read = await readAll(await transport.readStream('inbox', 'big.bin'));
        expect(read.bytes.equals(content)).toBe(true);
        expect(read.chunks).toBeGreaterThan(1);
        await expect(transport.readStream('inbox', 'missing.xml')).rejects.toThrow();
        expect(await transport.list('inbox')).toEqual(['big.bin']);
      } finally {
        await transport.close();
      }
    });
  });
});

describe.each(ENGINES)('the inbox reading a camt.054 as it streams (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let inbox: BankFileInbox;
  const quiet = { info() {}, warn() {} };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-stream-inbox-'));
    t = await startTestServer(engine, {
      env: {
        ...BANKFILE_ENV,
        PAYRAIL_BANKFILE_DIR: dir,
        PAYRAIL_BANKFILE_CUTOFFS: 'every 24h',
        PAYRAIL_BANKFILE_SCAN: '24h',
      },
    });
    const connector = new BankFileConnector(t.config.connectors.bankfile!, new FolderTransport(dir));
    const lifecycle = new PayoutLifecycle(new ConnectorRegistry([connector], 'bankfile'), new Metrics(), {
      refundDelayMs: 60_000,
      clock: systemClock,
    });
    const notifications = new BankNotifications(t.db, lifecycle, systemClock);
    inbox = new BankFileInbox(
      t.db,
      lifecycle,
      notifications,
      null,
      connector.transport,
      86_400_000,
      quiet,
      systemClock,
    );
    await connector.transport.prepare();
  });

  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A file of many 64 KiB chunks: the account's own entries, naming no payout. */
  const large = (last: string) =>
    camt054(
      Array.from({ length: 2000 }, (_, i) =>
        ntry(
          `${i + 1}.25`,
          'CRDT',
          `<NtryDtls><TxDtls><Refs><EndToEndId>CUST-${i}</EndToEndId></Refs></TxDtls></NtryDtls>`,
        ),
      ).join('') + last,
      'STREAMED',
    );

  const recorded = async (sha256: string) =>
    (
      await t.db.query<{ state: string; reason: string | null; message_type: string | null }>(
        'SELECT state, reason, message_type FROM inbound_bank_files WHERE sha256 = $1',
        [sha256],
      )
    ).rows[0];

  it('records the SHA-256 of every byte, applied or refused, and knows the same bytes again', async () => {
    const good = Buffer.from(large(''));
    expect(good.length).toBeGreaterThan(4 * 65_536);
    await writeFile(join(dir, 'inbox', 'good.xml'), good);
    expect(await inbox.handle('good.xml')).toMatchObject({ kind: 'applied', messageType: 'camt.054.001.08' });
    const goodHash = createHash('sha256').update(good).digest('hex');
    expect(await recorded(goodHash)).toMatchObject({ state: 'applied', message_type: 'camt.054.001.08' });

    // Refused at its last entry: read to its end all the same, for its hash; nothing applied.
    const bad = Buffer.from(large(ntry('1.5x', 'DBIT', '')));
    await writeFile(join(dir, 'inbox', 'bad.xml'), bad);
    expect(await inbox.handle('bad.xml')).toEqual({
      kind: 'failed',
      messageType: 'camt.054.001.08',
      reason: 'Ntry 2001/Amt: "1.5x" is not an amount',
    });
    const badHash = createHash('sha256').update(bad).digest('hex');
    expect(await recorded(badHash)).toMatchObject({
      state: 'failed',
      reason: 'Ntry 2001/Amt: "1.5x" is not an amount',
    });

    await writeFile(join(dir, 'inbox', 'again.xml'), good);
    expect(await inbox.handle('again.xml')).toEqual({ kind: 'known' });
  });
});
