import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import { BankFileInbox } from '../../src/jobs/BankFileInbox.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { BankFileConnector } from '../../src/rails/bankfile/BankFileConnector.ts';
import { FolderTransport } from '../../src/rails/bankfile/transport.ts';
import { ConnectorRegistry } from '../../src/rails/ConnectorRegistry.ts';
import { BankFileDeposits } from '../../src/services/BankFileDeposits.ts';
import { BankNotifications } from '../../src/services/BankNotifications.ts';
import { PayoutLifecycle } from '../../src/services/PayoutLifecycle.ts';
import { ReconciliationService } from '../../src/services/ReconciliationService.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { camt053, mt940 } from '../support/bankStatements.ts';
import { admin, createMerchant, http } from '../support/merchantClient.ts';
import { expectLedgerOk, walletBalance } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const quiet = { info() {}, warn() {} };
const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const utr = () => `N${randomBytes(7).toString('hex').toUpperCase()}`;
type Row = Record<string, unknown>;

interface Credit {
  amount: string;
  utr?: string;
  /** RltdPties/CdtrAcct/Id/Othr/Id. */
  creditor?: string;
  /** RmtInf/Ustrd. */
  remittance?: string;
  remitterName?: string;
  remitterAccount?: string;
  remitterIfsc?: string;
}

/** A camt.054 of credits to the collection account, as a bank notifies them (one Ntry and TxDtls per credit). */
function camt054(credits: Credit[], msgId = `DEP-${randomBytes(4).toString('hex')}`): string {
  const entries = credits.map((c, i) => {
    const parties =
      (c.remitterName ? `<Dbtr><Pty><Nm>${c.remitterName}</Nm></Pty></Dbtr>` : '') +
      (c.remitterAccount ? `<DbtrAcct><Id><Othr><Id>${c.remitterAccount}</Id></Othr></Id></DbtrAcct>` : '') +
      (c.creditor ? `<CdtrAcct><Id><Othr><Id>${c.creditor}</Id></Othr></Id></CdtrAcct>` : '');
    const agents = c.remitterIfsc
      ? `<RltdAgts><DbtrAgt><FinInstnId><ClrSysMmbId><MmbId>${c.remitterIfsc}</MmbId></ClrSysMmbId></FinInstnId></DbtrAgt></RltdAgts>`
      : '';
    return `<Ntry><Amt Ccy="INR">${c.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
      <AcctSvcrRef>BANK${i}${msgId}</AcctSvcrRef><NtryDtls><TxDtls>
      <Refs><EndToEndId>NOTPROVIDED</EndToEndId>${c.utr ? `<ClrSysRef>${c.utr}</ClrSysRef>` : ''}</Refs>
      <Amt Ccy="INR">${c.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>
      ${parties ? `<RltdPties>${parties}</RltdPties>` : ''}${agents}
      ${c.remittance ? `<RmtInf><Ustrd>${c.remittance}</Ustrd></RmtInf>` : ''}</TxDtls></NtryDtls></Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
  <GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>2026-11-25T10:00:00+05:30</CreDtTm></GrpHdr>
  <Ntfctn><Id>N</Id><Acct><Id><Othr><Id>50100099990000</Id></Othr></Id></Acct>${entries.join('')}</Ntfctn>
</BkToCstmrDbtCdtNtfctn></Document>`;
}

/**
 * Deposits from the bank's files (docs/operator/bank-files.md, "Deposits"): a credit naming a virtual account in a
 * camt.054, camt.053 or MT940 of the inbox is credited once per UTR, whichever of the file and the PSP's
 * notification came first; an unknown number or a refused remitter opens the notification's exceptions without
 * failing the file; a statement's credits reconcile against the deposits.
 */
describe.each(ENGINES)('deposits from bank files (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let inbox: BankFileInbox;
  let reconciliation: ReconciliationService;
  let n = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-dep-'));
    t = await startTestServer(engine, {
      env: {
        ...BANKFILE_ENV,
        PAYRAIL_BANKFILE_DIR: dir,
        PAYRAIL_BANKFILE_CUTOFFS: 'every 24h',
        PAYRAIL_BANKFILE_SCAN: '24h',
        PAYRAIL_PSP_NOTIFY_SECRET: SECRET,
      },
    });
    const settings = t.config.connectors.bankfile!;
    const connector = new BankFileConnector(settings, new FolderTransport(dir));
    const lifecycle = new PayoutLifecycle(new ConnectorRegistry([connector], 'bankfile'), new Metrics(), {
      refundDelayMs: 60_000,
      clock: systemClock,
    });
    reconciliation = new ReconciliationService(t.db, systemClock, t.config.virtualAccounts.prefix);
    inbox = new BankFileInbox(
      t.db,
      lifecycle,
      new BankNotifications(t.db, lifecycle, systemClock),
      reconciliation,
      connector.transport,
      86_400_000,
      quiet,
      systemClock,
      new BankFileDeposits({
        virtualAccounts: t.config.virtualAccounts,
        gstRateBp: t.config.gstRateBp,
        clock: systemClock,
      }),
    );
    await connector.transport.prepare();
  });

  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const drop = async (text: string, ext = 'xml') => {
    const name = `F${++n}.${ext}`;
    await writeFile(join(dir, 'inbox', name), text);
    return inbox.handle(name);
  };
  const vaOf = async (walletId: string) =>
    ((await admin(t.url, 'GET', `/admin/v1/wallets/${walletId}`)).body.virtual_account as { number: string }).number;
  const depositsOf = async (u: string) => (await t.db.query<Row>('SELECT * FROM deposits WHERE utr = $1', [u])).rows;
  const exceptionsOf = async (u: string) =>
    (await t.db.query<Row>("SELECT kind, source, wallet_id FROM exceptions WHERE reported->>'utr' = $1", [u])).rows;
  const notify = (body: unknown) => {
    const raw = JSON.stringify(body);
    return http(t.url, 'POST', '/psp/v1/deposits/notify', {
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        'payrail-signature': signPspNotification(SECRET, raw, Math.floor(Date.now() / 1000)),
      },
    });
  };

  it('credits a camt.054 credit to the virtual account in CdtrAcct once per UTR', async () => {
    const m = await createMerchant(t.url, 'File deposit');
    const hook = await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, {
      collection_callback_url: 'http://127.0.0.1:9/hooks',
    });
    expect(hook.status).toBe(200);
    const va = await vaOf(m.wallet_id);
    const u = utr();
    const credit = {
      amount: '1250.50',
      utr: u,
      creditor: va,
      remitterName: 'Asha Traders',
      remitterAccount: '50100012345678',
      remitterIfsc: 'HDFC0000123',
    };
    expect(await drop(camt054([credit]))).toMatchObject({ kind: 'applied', entries: 1, refused: 0 });
    expect(await depositsOf(u)).toMatchObject([
      {
        wallet_id: m.wallet_id,
        amount: 125_050n,
        source: 'bank_file',
        virtual_account: va,
        remitter_name: 'Asha Traders',
        remitter_account: '50100012345678',
        remitter_ifsc: 'HDFC0000123',
      },
    ]);
    // Another file reporting the same transfer (another MsgId, so other bytes): counted, credited nothing.
    expect(await drop(camt054([credit]))).toMatchObject({ kind: 'applied', entries: 1, refused: 0 });
    expect(await depositsOf(u)).toHaveLength(1);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('1250.50');
    // The merchant is told once, as for the other sources.
    const [deposit] = await depositsOf(u);
    const hooks = await t.db.query<{ snapshot: string }>(
      "SELECT snapshot FROM webhook_deliveries WHERE type = 'deposit.credited' AND subject_id = $1",
      [deposit?.id],
    );
    expect(hooks.rows).toHaveLength(1);
    expect(JSON.parse(hooks.rows[0]?.snapshot as string)).toMatchObject({
      deposit_id: deposit?.id,
      wallet_id: m.wallet_id,
      amount: '1250.50',
      fees: '0.00',
      utr: u,
      source: 'bank_file',
      remitter_ifsc: 'HDFC0000123',
    });
    await expectLedgerOk(t.url);
  });

  it('credits the same UTR once whether the notification or the file comes first', async () => {
    const m = await createMerchant(t.url, 'Both ways');
    const va = await vaOf(m.wallet_id);
    // The notification first, then the file.
    const first = utr();
    const byPsp = await notify({ virtual_account: va, amount: '300.00', utr: first });
    expect(byPsp.body).toMatchObject({ result: 'credited' });
    expect(await drop(camt054([{ amount: '300.00', utr: first, creditor: va }]))).toMatchObject({
      kind: 'applied',
      entries: 1,
      refused: 0,
    });
    expect(await depositsOf(first)).toMatchObject([{ source: 'psp_notify' }]);
    // The file first, then the notification.
    const second = utr();
    await drop(camt054([{ amount: '200.00', utr: second, remittance: `VA ${va} INVOICE 77` }]));
    const late = await notify({ virtual_account: va, amount: '200.00', utr: second });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ result: 'unchanged' });
    expect(await depositsOf(second)).toMatchObject([{ source: 'bank_file' }]);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('500.00');
    await expectLedgerOk(t.url);
  });

  it('prices a file’s deposits by the DEPOSIT rule exactly as the notification’s', async () => {
    const m = await createMerchant(t.url, 'Priced file deposits');
    const va = await vaOf(m.wallet_id);
    const plan = {
      name: 'Deposits',
      rules: {
        DEPOSIT: {
          slabs: [
            { up_to: '100.00', flat: '1.00' },
            { bps: 100, max: '50.00' },
          ],
        },
      },
    };
    expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/pricing`, plan)).status).toBe(200);
    // A charge above the amount is lowered to fit (0.50), a percentage clamped to its maximum (9000.00).
    for (const amount of ['0.50', '60.00', '2345.67', '9000.00']) {
      const [byPsp, byFile] = [utr(), utr()];
      expect((await notify({ virtual_account: va, amount, utr: byPsp })).body).toMatchObject({ result: 'credited' });
      await drop(camt054([{ amount, utr: byFile, creditor: va }]));
      const [a] = await depositsOf(byPsp);
      const [b] = await depositsOf(byFile);
      expect(b).toMatchObject({ amount: a?.amount, fee: a?.fee, tax: a?.tax, source: 'bank_file' });
    }
    await expectLedgerOk(t.url);
  });

  it('opens the notification’s exceptions for an unknown number or a refused remitter, and applies the rest', async () => {
    const m = await createMerchant(t.url, 'Allowed only');
    const va = await vaOf(m.wallet_id);
    const set = await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/allowed-remitters`, {
      accounts: [{ account_number: '11112222', ifsc: 'ICIC0000001' }],
    });
    expect(set.status).toBe(200);
    const typo = `${va.slice(0, -1)}${(Number(va.slice(-1)) + 1) % 10}`;
    const [unknown, stranger, friend] = [utr(), utr(), utr()];
    const result = await drop(
      camt054([
        { amount: '10.00', utr: unknown, creditor: typo },
        { amount: '20.00', utr: stranger, creditor: va, remitterAccount: '99990000', remitterIfsc: 'SBIN0000001' },
        { amount: '30.00', utr: friend, creditor: va, remitterAccount: '11112222', remitterIfsc: 'ICIC0000001' },
        // Not a deposit: names no virtual account (the account's other credits are not read here).
        { amount: '40.00', utr: utr(), creditor: '50100099990000' },
      ]),
    );
    expect(result).toMatchObject({ kind: 'applied', entries: 1, refused: 2 });
    expect(await depositsOf(unknown)).toHaveLength(0);
    expect(await depositsOf(stranger)).toHaveLength(0);
    expect(await exceptionsOf(unknown)).toMatchObject([{ kind: 'unknown_virtual_account', source: 'deposit' }]);
    expect(await exceptionsOf(stranger)).toMatchObject([
      { kind: 'remitter_not_allowed', source: 'deposit', wallet_id: m.wallet_id },
    ]);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('30.00');
    // The same credit notified by the PSP is the same exception, not a second one.
    await notify({ virtual_account: typo, amount: '10.00', utr: unknown });
    expect(await exceptionsOf(unknown)).toHaveLength(1);
  });

  it('credits a camt.053 and an MT940 credit naming the virtual account in the remittance, and matches them', async () => {
    const m = await createMerchant(t.url, 'Statements');
    const va = await vaOf(m.wallet_id);
    const [a, b] = [utr(), utr()];
    const camt = await drop(
      camt053({
        id: `DEP-${a}`,
        entries: [{ direction: 'credit', amount: '700.00', utr: a, remittance: `NEFT CR VA ${va} ASHA` }],
      }),
    );
    expect(camt).toMatchObject({ kind: 'applied', entries: 1, refused: 0 });
    const text = await drop(
      mt940({ id: `DEP-${b}`, entries: [{ direction: 'credit', amount: '55.25', utr: b, remittance: `VA ${va}` }] }),
      'sta',
    );
    expect(text).toMatchObject({ kind: 'applied', entries: 1, refused: 0 });
    expect(await depositsOf(a)).toMatchObject([{ amount: 70_000n, source: 'bank_file', wallet_id: m.wallet_id }]);
    expect(await depositsOf(b)).toMatchObject([{ amount: 5_525n, source: 'bank_file', wallet_id: m.wallet_id }]);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('755.25');
    const items = await t.db.query<Row>(
      'SELECT result, matched_kind, deposit_id, wallet_id FROM reconciliation_items WHERE utr = ANY($1) ORDER BY utr',
      [[a, b].sort()],
    );
    expect(items.rows).toHaveLength(2);
    for (const item of items.rows) {
      expect(item).toMatchObject({ result: 'matched', matched_kind: 'deposit', wallet_id: m.wallet_id });
    }
    await expectLedgerOk(t.url);
  });

  it('reconciles a credit against its deposit: another amount, or no deposit at all, is not matched', async () => {
    const m = await createMerchant(t.url, 'Reconciled');
    const va = await vaOf(m.wallet_id);
    const [same, other, none] = [utr(), utr(), utr()];
    for (const [u, amount] of [
      [same, '100.00'],
      [other, '100.00'],
    ] as const) {
      expect((await notify({ virtual_account: va, amount, utr: u })).body).toMatchObject({ result: 'credited' });
    }
    // Imported by an operator (not the inbox): it reconciles, and credits nothing.
    const [run] = await reconciliation.importStatement(
      Buffer.from(
        camt053({
          id: `REC-${same}`,
          entries: [
            { direction: 'credit', amount: '100.00', utr: same, remittance: va },
            { direction: 'credit', amount: '100.01', utr: other, remittance: va },
            { direction: 'credit', amount: '9.00', utr: none, remittance: `VA ${va}` },
          ],
        }),
      ),
      'auto',
      'test',
    );
    expect(run?.summary).toBeDefined();
    const items = await t.db.query<{ utr: string; result: string; matched_kind: string | null; note: string | null }>(
      'SELECT utr, result, matched_kind, note FROM reconciliation_items WHERE utr = ANY($1)',
      [[same, other, none]],
    );
    const byUtr = new Map(items.rows.map((r) => [r.utr, r]));
    expect(byUtr.get(same)).toMatchObject({ result: 'matched', matched_kind: 'deposit' });
    expect(byUtr.get(other)).toMatchObject({ result: 'amount_mismatch', matched_kind: 'deposit' });
    expect(byUtr.get(other)?.note).toContain('100.01');
    expect(byUtr.get(none)).toMatchObject({ result: 'unmatched', matched_kind: null });
    expect(byUtr.get(none)?.note).toContain(`virtual account ${va}`);
    expect(await depositsOf(none)).toHaveLength(0);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('200.00');
  });

  it('refuses a file with a malformed amount and writes nothing', async () => {
    const m = await createMerchant(t.url, 'Malformed');
    const va = await vaOf(m.wallet_id);
    const [good, bad] = [utr(), utr()];
    for (const amount of ['12.345', '1,000.00', '1e3']) {
      const result = await drop(
        camt054([
          { amount: '5.00', utr: good, creditor: va },
          { amount, utr: bad, creditor: va },
        ]),
      );
      expect(result).toMatchObject({ kind: 'failed' });
      expect((result as { reason: string }).reason).toMatch(/Amt/);
    }
    expect(await depositsOf(good)).toHaveLength(0);
    expect(await depositsOf(bad)).toHaveLength(0);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('0.00');
    expect(await readdir(join(dir, 'failed'))).toHaveLength(3);
  });
});
