import { copyFile, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateOnce } from '../../../cli/src/bankSimulator.ts';
import { admin } from '../support/merchantClient.ts';
import {
  fundedMerchant,
  initiateOk,
  payoutRequest,
  SANDBOX,
  waitForStatus,
  adminPayout,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { mt940 } from '../support/bankStatements.ts';

const camt054 = (entries: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
  <GrpHdr><MsgId>T-${Math.random().toString(36).slice(2)}</MsgId><CreDtTm>2026-11-25T10:00:00+05:30</CreDtTm></GrpHdr>
  <Ntfctn><Id>N</Id>${entries}</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;

const entry = (id: string, amount: string, direction: 'DBIT' | 'CRDT', extra = '') =>
  `<Ntry><Amt Ccy="INR">${amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
   <AcctSvcrRef>REF${id.slice(-6)}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>${id}</EndToEndId>
   <ClrSysRef>UTR${id.slice(-9)}</ClrSysRef></Refs>${extra}</TxDtls></NtryDtls></Ntry>`;

describe.each(ENGINES)('bank files through a folder (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let funded: Funded;
  const ids: Record<string, string> = {};

  const inbound = async () =>
    (await admin(t.url, 'GET', '/admin/v1/bankfiles/inbound')).body.data as Record<string, unknown>[];
  const files = async () => (await admin(t.url, 'GET', '/admin/v1/bankfiles')).body.data as Record<string, unknown>[];
  const folder = (name: string) => readdir(join(dir, name));
  /** Puts a file in the inbox (written aside, then renamed, as a bank does) and waits for it to leave. */
  const deliverToInbox = async (name: string, text: string) => {
    await writeFile(join(dir, 'inbox', `.${name}.part`), text);
    const { rename } = await import('node:fs/promises');
    await rename(join(dir, 'inbox', `.${name}.part`), join(dir, 'inbox', name));
    await eventually(async () => !(await folder('inbox')).includes(name), 10_000, 50);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-bank-'));
    t = await startTestServer(engine, { env: { ...BANKFILE_ENV, PAYRAIL_BANKFILE_DIR: dir } });
    funded = await fundedMerchant(t.url, 'v2');
  });

  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('cuts the waiting payouts into one pain.001 and moves them to PROCESSING with the MsgId', async () => {
    const wallet = funded.merchant.wallet_id;
    const send = async (key: string, account: string, mode: string, ifsc = SANDBOX.ifsc) => {
      const p = await initiateOk(
        funded.client,
        payoutRequest('nested', {
          wallet_id: wallet,
          amount: '150.25',
          payment_mode: mode,
          beneficiary_ifsc: ifsc,
          beneficiary_acc_number: account,
          remarks: 'Invoice <42> & co',
        }),
      );
      ids[key] = p.transaction_id as string;
    };
    await send('success', SANDBOX.success, 'NEFT');
    await send('failure', SANDBOX.failure, 'IMPS');
    await send('pending', SANDBOX.pending, 'NEFT');
    await send('plain', '123456789012', 'IMPS', 'HDFC0001234');
    const view = await waitForStatus(t.url, ids.success as string, 'PROCESSING');
    const msgId = view.rail_reference as string;
    expect(msgId).toMatch(/^PR[0-9A-Z]{26}$/);
    for (const id of Object.values(ids)) {
      const p = await waitForStatus(t.url, id, 'PROCESSING');
      expect(p.rail).toBe('bankfile');
      // A cut-off happening between two initiations may have put them in two files; each is in exactly one.
      expect(p.rail_reference).toMatch(/^PR/);
    }
    const outbox = await folder('outbox');
    expect(outbox).toContain(`PAYRAIL-${msgId}.xml`);
    expect(outbox.every((n) => /^PAYRAIL-PR[0-9A-Z]{26}\.xml$/.test(n))).toBe(true);
    const listed = await files();
    const total = listed.reduce((n, f) => n + (f.payout_count as number), 0);
    expect(total).toBe(4);
    expect(listed.every((f) => f.delivered_at !== null)).toBe(true);
    const onDisk = await readFile(join(dir, 'outbox', `PAYRAIL-${msgId}.xml`), 'utf8');
    const file = await admin(t.url, 'GET', `/admin/v1/bankfiles/${msgId}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('application/xml');
    expect(file.body.raw).toBe(onDisk);
    expect(onDisk).toContain('<Ustrd>Invoice &lt;42&gt; &amp; co</Ustrd>');
    expect((await admin(t.url, 'GET', '/admin/v1/bankfiles/PRNOSUCHFILE')).status).toBe(404);
    // `?limit=` as documented (it answered 400 while its schema wanted an integer the server does not coerce).
    const one = await admin(t.url, 'GET', '/admin/v1/bankfiles?limit=1');
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(listed.slice(0, 1));
    expect((await admin(t.url, 'GET', '/admin/v1/bankfiles/inbound?limit=1')).status).toBe(200);
    expect((await admin(t.url, 'GET', '/admin/v1/bankfiles?limit=ten')).status).toBe(400);
  });

  it('applies the bank’s answers: SUCCESS with the UTR, FAILED → REFUNDED with the reason, PENDING', async () => {
    const answered = await simulateOnce(dir);
    expect(answered.reduce((n, a) => n + a.accepted, 0)).toBe(2);
    const success = await waitForStatus(t.url, ids.success as string, 'SUCCESS');
    expect(success.utr_number).toMatch(/^\d{12}$/);
    await waitForStatus(t.url, ids.plain as string, 'SUCCESS');
    const refunded = await waitForStatus(t.url, ids.failure as string, 'REFUNDED');
    expect(refunded.failure_reason).toBe(
      'AC01 Incorrect account number: Account number not found at the beneficiary bank',
    );
    await waitForStatus(t.url, ids.pending as string, 'PENDING');
    await eventually(async () => (await folder('inbox')).length === 0, 10_000, 50);
    const list = await inbound();
    expect(list.length).toBeGreaterThanOrEqual(2);
    expect(list.every((f) => f.state === 'applied')).toBe(true);
    expect((await folder('processed')).length).toBe(list.length);
  });

  it('changes nothing when the same file comes again: it moves to processed/', async () => {
    const before = await inbound();
    const processed = await folder('processed');
    const again = processed.find((n) => n.startsWith('PAIN002-')) as string;
    await copyFile(join(dir, 'processed', again), join(dir, 'inbox', 'again.xml'));
    await eventually(async () => !(await folder('inbox')).includes('again.xml'), 10_000, 50);
    expect((await inbound()).length).toBe(before.length);
    expect((await folder('processed')).length).toBe(processed.length + 1);
    expect((await adminPayout(t.url, ids.success as string)).status).toBe('SUCCESS');
  });

  it('moves an unreadable file to failed/ with its reason, and changes nothing', async () => {
    await deliverToInbox('garbage.xml', 'this is not a bank file');
    await deliverToInbox(
      'bomb.xml',
      `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"/>`,
    );
    // A schema violation in the second entry: the first, valid, is not applied either (the file is whole or nothing).
    await deliverToInbox(
      'half.xml',
      camt054(entry(ids.pending as string, '150.25', 'DBIT') + entry(ids.pending as string, '1.5x', 'DBIT')),
    );
    expect((await folder('failed')).sort()).toEqual(['bomb.xml', 'garbage.xml', 'half.xml']);
    const failed = (await inbound()).filter((f) => f.state === 'failed');
    expect(failed.map((f) => [f.name, f.reason])).toEqual(
      expect.arrayContaining([
        ['garbage.xml', 'not XML'],
        ['bomb.xml', 'a DOCTYPE or ENTITY declaration is not accepted'],
        ['half.xml', expect.stringContaining('is not an amount')],
      ]),
    );
    expect((await adminPayout(t.url, ids.pending as string)).status).toBe('PENDING');
  });

  it('keeps an amount mismatch on the payout, applies the rest of the file, and takes a return', async () => {
    await deliverToInbox(
      'mismatch.xml',
      camt054(
        entry(ids.pending as string, '150.24', 'DBIT') +
          entry(ids.success as string, '150.25', 'CRDT', '<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf>'),
      ),
    );
    const pending = await adminPayout(t.url, ids.pending as string);
    expect(pending.status).toBe('PENDING');
    expect(pending.rail_error).toContain('150.24');
    const returned = await waitForStatus(t.url, ids.success as string, 'REFUNDED');
    expect(returned.return_reason).toBe('AC04 Closed account number');
    const record = (await inbound()).find((f) => f.name === 'mismatch.xml');
    expect(record).toMatchObject({ state: 'applied', entries: 2, refused: 1 });
    expect(String(record?.reason)).toContain('150.24');
  });

  it('puts a payout in at most one file, and delivers a file left undelivered by a crash again, unchanged', async () => {
    const msg_id = ((await files())[0] as { msg_id: string }).msg_id;
    const original = await readFile(join(dir, 'outbox', `PAYRAIL-${msg_id}.xml`), 'utf8');
    // As if the instance crashed after the cut and before the delivery was recorded.
    await t.db.query(
      `UPDATE bank_files SET delivered_at = NULL, delivery_lease_until = now() - interval '1 second' WHERE msg_id = $1`,
      [msg_id],
    );
    await unlink(join(dir, 'outbox', `PAYRAIL-${msg_id}.xml`));
    // The next cut-off delivers it (the file is written at start-up and at each cut-off).
    const again = await eventually(
      async () => readFile(join(dir, 'outbox', `PAYRAIL-${msg_id}.xml`), 'utf8').catch(() => null),
      10_000,
      50,
    );
    expect(again).toBe(original);
    await eventually(async () => (await files()).every((f) => f.delivered_at !== null), 10_000, 50);
    const p = await initiateOk(
      funded.client,
      payoutRequest('nested', {
        wallet_id: funded.merchant.wallet_id,
        beneficiary_acc_number: SANDBOX.success,
        beneficiary_ifsc: SANDBOX.ifsc,
      }),
    );
    await waitForStatus(t.url, p.transaction_id as string, 'PROCESSING');
    const { rows } = await t.db.query<{ payout_id: string; n: string }>(
      'SELECT payout_id, count(*) AS n FROM bank_file_items GROUP BY payout_id HAVING count(*) > 1',
    );
    expect(rows).toEqual([]);
    const { rows: all } = await t.db.query<{ n: string }>('SELECT count(*) AS n FROM bank_file_items');
    expect(Number(all[0]?.n)).toBe(5);
    // The bank answers the second file with a statement too: imported for reconciliation from the inbox.
    await simulateOnce(dir, { statement: true });
    const statement = await eventually(
      async () => (await inbound()).find((f) => f.message_type === 'camt.053.001.08') ?? null,
      10_000,
      50,
    );
    expect(statement).toMatchObject({ state: 'applied' });
    const runs = await admin(t.url, 'GET', '/admin/v1/reconciliation/runs');
    expect(runs.status).toBe(200);
    expect((runs.body.data as unknown[]).length).toBe(1);
    // A group rejection rejects every payout of the original file.
    const third = await initiateOk(
      funded.client,
      payoutRequest('nested', {
        wallet_id: funded.merchant.wallet_id,
        beneficiary_acc_number: SANDBOX.success,
        beneficiary_ifsc: SANDBOX.ifsc,
      }),
    );
    const cut = await waitForStatus(t.url, third.transaction_id as string, 'PROCESSING');
    await deliverToInbox(
      'group.xml',
      `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>
        <GrpHdr><MsgId>G1</MsgId><CreDtTm>2026-11-25T10:00:00</CreDtTm></GrpHdr>
        <OrgnlGrpInfAndSts><OrgnlMsgId>${String(cut.rail_reference)}</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.10</OrgnlMsgNmId>
        <GrpSts>RJCT</GrpSts><StsRsnInf><Rsn><Cd>FF01</Cd></Rsn></StsRsnInf></OrgnlGrpInfAndSts></CstmrPmtStsRpt></Document>`,
    );
    const rejected = await waitForStatus(t.url, third.transaction_id as string, 'REFUNDED');
    expect(rejected.failure_reason).toBe('FF01 Invalid file format');
    // A rejected payment block (PmtInfSts RJCT) rejects the file's payouts of that mode.
    const fourth = await initiateOk(
      funded.client,
      payoutRequest('nested', {
        wallet_id: funded.merchant.wallet_id,
        payment_mode: 'NEFT',
        beneficiary_acc_number: SANDBOX.success,
        beneficiary_ifsc: SANDBOX.ifsc,
      }),
    );
    const blockCut = await waitForStatus(t.url, fourth.transaction_id as string, 'PROCESSING');
    await deliverToInbox(
      'block.xml',
      `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>
        <GrpHdr><MsgId>G2</MsgId><CreDtTm>2026-11-25T10:00:00</CreDtTm></GrpHdr>
        <OrgnlGrpInfAndSts><OrgnlMsgId>${String(blockCut.rail_reference)}</OrgnlMsgId></OrgnlGrpInfAndSts>
        <OrgnlPmtInfAndSts><OrgnlPmtInfId>${String(blockCut.rail_reference)}-NEFT</OrgnlPmtInfId><PmtInfSts>RJCT</PmtInfSts>
        <StsRsnInf><Rsn><Cd>AM04</Cd></Rsn></StsRsnInf></OrgnlPmtInfAndSts></CstmrPmtStsRpt></Document>`,
    );
    const blockRejected = await waitForStatus(t.url, fourth.transaction_id as string, 'REFUNDED');
    expect(blockRejected.failure_reason).toBe('AM04 Insufficient funds');
    // An MT940 statement through the inbox too: imported for reconciliation, one that does not add up refused.
    const runsBefore = ((await admin(t.url, 'GET', '/admin/v1/reconciliation/runs')).body.data as unknown[]).length;
    const statement940 = mt940({
      id: 'MT940-INBOX',
      entries: [{ direction: 'credit', amount: '42.00', bankRef: 'X1', remittance: 'not a Payrail payment' }],
    });
    await deliverToInbox('STATEMENT.sta', statement940);
    await deliverToInbox('UNBALANCED.sta', mt940({ id: 'MT940-BAD', closing: '1.00', entries: [] }));
    const read940 = (await inbound()).filter((f) => f.message_type === 'MT940');
    expect(read940.map((f) => [f.name, f.state])).toEqual(
      expect.arrayContaining([
        ['STATEMENT.sta', 'applied'],
        ['UNBALANCED.sta', 'failed'],
      ]),
    );
    expect(String(read940.find((f) => f.name === 'UNBALANCED.sta')?.reason)).toContain('closing');
    expect(await folder('failed')).toContain('UNBALANCED.sta');
    const runsAfter = (await admin(t.url, 'GET', '/admin/v1/reconciliation/runs')).body.data as Record<
      string,
      unknown
    >[];
    expect(runsAfter.length).toBe(runsBefore + 1);
    // The database itself refuses a second file for a payout.
    await expect(
      t.db
        .query(`INSERT INTO bank_files (msg_id, payout_count, ctrl_sum, xml) VALUES ('PRDUP', 1, 1, '')`)
        .then(() =>
          t.db.query(`INSERT INTO bank_file_items (msg_id, payout_id) VALUES ('PRDUP', $1)`, [p.transaction_id]),
        ),
    ).rejects.toThrow();
  });
});
