import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptJson, signBody } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateOnce } from '../../../cli/src/bankSimulator.ts';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { camt053 } from '../support/bankStatements.ts';
import { admin, http, type HttpResult } from '../support/merchantClient.ts';
import {
  adminPayout,
  expectLedgerOk,
  fundedMerchant,
  initiateOk,
  payoutRequest,
  SANDBOX,
  waitForStatus,
  walletBalance,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

type Row = Record<string, unknown>;

const PSP_SECRET = 'psp-secret-for-outside-reports-0123456789';
/** Payrail's account at an upstream: only its keys matter here (the upstream itself is never called). */
const UPSTREAM = { apiKey: 'upstream-api-key-0001', secretKey: 'upstream-secret-key-0001-abcdefgh' };
const UPSTREAM_WEBHOOK_SECRET = 'upstream-webhook-secret-0001';

const camt054 = (entries: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
  <GrpHdr><MsgId>T-${Math.random().toString(36).slice(2)}</MsgId><CreDtTm>2026-11-25T10:00:00+05:30</CreDtTm></GrpHdr>
  <Ntfctn><Id>N</Id>${entries}</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;

const returnCredit = (id: string, amount: string, currency = 'INR') =>
  `<Ntry><Amt Ccy="${currency}">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
   <AcctSvcrRef>RET${id.slice(-6)}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>${id}</EndToEndId></Refs>
   <RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf></TxDtls></NtryDtls></Ntry>`;

const pain002 = (originalMsgId: string, body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>
  <GrpHdr><MsgId>R-${Math.random().toString(36).slice(2)}</MsgId><CreDtTm>2026-11-25T10:00:00+05:30</CreDtTm></GrpHdr>
  ${body.replace('%ORIGINAL%', originalMsgId)}</CstmrPmtStsRpt></Document>`;

/**
 * A report from outside moves only the money it matches (docs/operator/exceptions.md). Each case is one the probe reproduced: before
 * these rules, every one of them moved money (a bank-file payout settled by an upstream event or a PSP notification,
 * a 1.00 return refunding 40.00, a duplicate-file rejection refunding paid payouts, a report on file X failing file Y).
 */
describe.each(ENGINES)('outside reports move only the money they match (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let f: Funded;

  const folder = (name: string) => readdir(join(dir, name));
  const deliverToInbox = async (name: string, text: string) => {
    await writeFile(join(dir, 'inbox', `.${name}.part`), text);
    await rename(join(dir, 'inbox', `.${name}.part`), join(dir, 'inbox', name));
    await eventually(async () => !(await folder('inbox')).includes(name), 10_000, 50);
  };
  const balance = () => walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id);
  const exception = async (id: unknown) => (await admin(t.url, 'GET', `/admin/v1/exceptions/${String(id)}`)).body;
  const exceptionsOf = async (payoutId: string) =>
    ((await admin(t.url, 'GET', '/admin/v1/exceptions?limit=200')).body.data as Row[]).filter(
      (e) => e.payout_id === payoutId,
    );
  const notify = (body: unknown): Promise<HttpResult> => {
    const raw = JSON.stringify(body);
    const at = Math.floor(Date.now() / 1000);
    return http(t.url, 'POST', '/psp/v1/payouts/notify', {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'payrail-signature': signPspNotification(PSP_SECRET, raw, at) },
    });
  };
  const upstreamEvent = (data: Record<string, unknown>): Promise<HttpResult> => {
    const body = JSON.stringify({
      id: `EV-${Math.random().toString(36).slice(2)}`,
      type: 'payout.updated',
      created_at: '2026-11-25T10:00:00Z',
      data: encryptJson(data, 'v2', UPSTREAM),
    });
    return http(t.url, 'POST', '/psp/v1/upstream/webhook', {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-signature': signBody(UPSTREAM_WEBHOOK_SECRET, body) },
    });
  };
  /** A bank-file payout of `amount`, cut into a file and delivered (PROCESSING, its file's MsgId its reference). */
  const processing = async (amount: string): Promise<string> => {
    const p = await initiateOk(
      f.client,
      payoutRequest('nested', {
        wallet_id: f.merchant.wallet_id,
        amount,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.success,
      }),
    );
    const id = p.transaction_id as string;
    await waitForStatus(t.url, id, 'PROCESSING');
    return id;
  };
  /** Bank-file payouts paid by the simulated bank (pain.002 ACCP, camt.054 booked): SUCCESS with a UTR. */
  const paid = async (...amounts: string[]): Promise<string[]> => {
    const ids = await Promise.all(amounts.map(processing));
    await simulateOnce(dir);
    for (const id of ids) await waitForStatus(t.url, id, 'SUCCESS');
    return ids;
  };
  const fileOf = async (id: string) => String((await adminPayout(t.url, id)).rail_reference);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-reports-'));
    t = await startTestServer(engine, {
      env: {
        ...BANKFILE_ENV,
        PAYRAIL_BANKFILE_DIR: dir,
        PAYRAIL_PSP_NOTIFY_SECRET: PSP_SECRET,
        // The upstream connector is configured (its webhook route exists) but pays nothing here: these payouts are
        // IMPS, which go to files.
        PAYRAIL_CONNECTOR_ROUTES: 'RTGS=upstream',
        PAYRAIL_UPSTREAM_URL: 'http://127.0.0.1:9/api',
        PAYRAIL_UPSTREAM_API_KEY: UPSTREAM.apiKey,
        PAYRAIL_UPSTREAM_SECRET_KEY: UPSTREAM.secretKey,
        PAYRAIL_UPSTREAM_WALLET_ID: 'WL00000000000000000000000000',
        PAYRAIL_UPSTREAM_WEBHOOK_SECRET: UPSTREAM_WEBHOOK_SECRET,
      },
    });
    f = await fundedMerchant(t.url, 'v2', '10000.00');
  });

  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an upstream event about a bank-file payout moves nothing: 200 refused, one exception, the same event again records nothing new', async () => {
    const id = await processing('202.00');
    const before = await balance();
    for (const status of ['SUCCESS', 'FAILED'] as const) {
      const data = {
        sender_id: id,
        transaction_id: 'PTUPSTREAMSOMEONEELSE0000000',
        amount: '202.00',
        status,
        status_message: status === 'FAILED' ? 'Beneficiary account closed' : '',
        utr_number: status === 'SUCCESS' ? '612345678901' : '',
      };
      const res = await upstreamEvent(data);
      expect([res.status, res.body.result, res.body.transactionId], JSON.stringify(res.body)).toEqual([
        200,
        'refused',
        id,
      ]);
      const again = await upstreamEvent(data);
      expect(again.body.exception_id).toBe(res.body.exception_id);
      expect(await exception(res.body.exception_id)).toMatchObject({
        kind: 'report_refused',
        state: 'open',
        source: 'upstream_webhook',
        payout_id: id,
        amount: '202.00',
        reported: { status: status === 'SUCCESS' ? 'SUCCESS' : 'FAILED', reference: 'PTUPSTREAMSOMEONEELSE0000000' },
        held: { status: 'PROCESSING', connector: 'bankfile' },
        allowed_actions: ['apply_as_reported', 'dismiss'],
      });
    }
    expect(await adminPayout(t.url, id)).toMatchObject({ status: 'PROCESSING', utr_number: '', rail_error: null });
    expect(await balance()).toBe(before);
    expect(await exceptionsOf(id)).toHaveLength(2);
  });

  it('a PSP notification about a bank-file payout moves nothing', async () => {
    const id = await processing('203.00');
    const before = await balance();
    const res = await notify({ transactionId: id, status: 'FAILED', reason: 'Account closed' });
    expect([res.status, res.body.result]).toEqual([200, 'refused']);
    expect(await exception(res.body.exception_id)).toMatchObject({ kind: 'report_refused', source: 'psp_notify' });
    const success = await notify({ transactionId: id, status: 'SUCCESS', utr: '612345678902' });
    expect(success.body.result).toBe('refused');
    expect((await adminPayout(t.url, id)).status).toBe('PROCESSING');
    expect(await balance()).toBe(before);
    // The operator may still take the report as it came: through the transition table, as the operator.
    const applied = await admin(t.url, 'POST', `/admin/v1/exceptions/${String(success.body.exception_id)}/resolve`, {
      action: 'apply_as_reported',
      reason: 'the bank confirmed the transfer by phone',
    });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(await adminPayout(t.url, id)).toMatchObject({ status: 'SUCCESS', utr_number: '612345678902' });
    // The FAILED one can no longer be applied: the payout left PROCESSING; the exception stays open.
    const late = await admin(t.url, 'POST', `/admin/v1/exceptions/${String(res.body.exception_id)}/resolve`, {
      action: 'apply_as_reported',
      reason: 'too late',
    });
    expect([late.status, (late.body.error as Row).code]).toEqual([409, 'invalid_state']);
    expect((await exception(res.body.exception_id)).state).toBe('open');
    expect((await adminPayout(t.url, id)).status).toBe('SUCCESS');
  });

  it('a return of 1.00 INR or 0.01 USD for a 40.00 payout refunds nothing, before or after SUCCESS; the exact amount refunds it', async () => {
    const [succeeded] = await paid('40.00');
    const inFlight = await processing('40.00');
    const before = await balance();
    await deliverToInbox(
      'partial-returns.xml',
      camt054(
        returnCredit(succeeded as string, '1.00') +
          returnCredit(succeeded as string, '0.01', 'USD') +
          returnCredit(inFlight, '1.00'),
      ),
    );
    expect((await adminPayout(t.url, succeeded as string)).status).toBe('SUCCESS');
    expect((await adminPayout(t.url, inFlight)).status).toBe('PROCESSING');
    expect(await balance()).toBe(before);
    const kinds = (await exceptionsOf(succeeded as string)).map((e) => [e.kind, (e.reported as Row).amount]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['return_mismatch', '1.00'],
        ['return_mismatch', '0.01'],
      ]),
    );
    const usd = (await exceptionsOf(succeeded as string)).find((e) => (e.reported as Row).currency === 'USD');
    expect(String(usd?.reason)).toContain('USD 0.01');
    expect(String(usd?.reason)).toContain('INR 40.00');
    expect((await exceptionsOf(inFlight)).map((e) => e.kind)).toEqual(['return_mismatch']);
    const inbound = (await admin(t.url, 'GET', '/admin/v1/bankfiles/inbound')).body.data as Row[];
    expect(inbound.find((r) => r.name === 'partial-returns.xml')).toMatchObject({ state: 'applied', refused: 3 });

    // The exact amount in INR is a return.
    await deliverToInbox('full-return.xml', camt054(returnCredit(succeeded as string, '40.00')));
    await waitForStatus(t.url, succeeded as string, 'REFUNDED');
    expect(BigInt(Math.round(Number(await balance()) * 100)) - BigInt(Math.round(Number(before) * 100))).toBe(4000n);
    await expectLedgerOk(t.url);
  });

  it('a pain.002 rejecting a file (DUPL) whose payouts are SUCCESS books no return: a contradiction per payout, and the statement still matches their debits', async () => {
    const ids = await paid('31.00', '32.00', '33.00');
    // The three may have been cut into one file or two (a cut-off every 200 ms): each file is rejected whole.
    const files = [...new Set(await Promise.all(ids.map(fileOf)))];
    const before = await balance();
    for (const [i, msgId] of files.entries()) {
      await deliverToInbox(
        `dupl-${i}.xml`,
        pain002(
          msgId,
          '<OrgnlGrpInfAndSts><OrgnlMsgId>%ORIGINAL%</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.10</OrgnlMsgNmId><GrpSts>RJCT</GrpSts><StsRsnInf><Rsn><Cd>DUPL</Cd></Rsn></StsRsnInf></OrgnlGrpInfAndSts>',
        ),
      );
    }
    for (const id of ids) {
      expect((await adminPayout(t.url, id)).status).toBe('SUCCESS');
      expect((await exceptionsOf(id)).map((e) => e.kind)).toEqual(['status_contradiction']);
    }
    expect(await balance()).toBe(before);

    const today = new Date(Date.now() + 19_800_000).toISOString().slice(0, 10);
    const statement = camt053({
      id: `STMT-DUPL-${engine}`,
      date: today,
      entries: ids.map((id, i) => ({ direction: 'debit' as const, amount: `${31 + i}.00`, e2e: id })),
    });
    const res = await http(t.url, 'POST', '/admin/v1/reconciliation/statements', {
      rawBody: statement,
      headers: { 'content-type': 'application/xml', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const run = (res.body.runs as Row[])[0] as Row;
    const detail = (await admin(t.url, 'GET', `/admin/v1/reconciliation/runs/${String(run.run_id)}`)).body;
    const items = (detail.items as Row[]).filter((i) => ids.includes(String(i.payout_id)));
    expect(items.map((i) => [i.result, i.note])).toEqual(ids.map(() => ['matched', null]));
  });

  it('a pain.002 naming file X fails no payout of file Y', async () => {
    const x = await processing('41.00');
    const xFile = await fileOf(x);
    const y = await processing('42.00');
    const yFile = await fileOf(y);
    expect(yFile).not.toBe(xFile);
    await deliverToInbox(
      'wrong-file.xml',
      pain002(
        xFile,
        `<OrgnlGrpInfAndSts><OrgnlMsgId>%ORIGINAL%</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.10</OrgnlMsgNmId></OrgnlGrpInfAndSts>
         <OrgnlPmtInfAndSts><OrgnlPmtInfId>${xFile}-IMPS</OrgnlPmtInfId><TxInfAndSts><OrgnlEndToEndId>${y}</OrgnlEndToEndId>
         <TxSts>RJCT</TxSts><StsRsnInf><Rsn><Cd>AC01</Cd></Rsn></StsRsnInf></TxInfAndSts></OrgnlPmtInfAndSts>`,
      ),
    );
    expect((await adminPayout(t.url, y)).status).toBe('PROCESSING');
    const [refused] = await exceptionsOf(y);
    expect(refused).toMatchObject({ kind: 'report_refused', source: 'bankfile', source_ref: 'wrong-file.xml' });
    expect(String(refused?.reason)).toContain(yFile);
  });

  it('entries naming no payout are one exception per file, with their count and amount', async () => {
    const debit = (e2e: string, amount: string) =>
      `<Ntry><Amt Ccy="INR">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><AcctSvcrRef>X</AcctSvcrRef>
       <NtryDtls><TxDtls><Refs><EndToEndId>${e2e}</EndToEndId><ClrSysRef>UTR1</ClrSysRef></Refs></TxDtls></NtryDtls></Ntry>`;
    await deliverToInbox(
      'strangers.xml',
      camt054(
        debit('PT00000000000000000000000001', '10.00') +
          debit('SOMEONE-ELSES', '5.50') +
          debit('PT0000000000000000000000000Z', '1.00'),
      ),
    );
    const all = (await admin(t.url, 'GET', '/admin/v1/exceptions?limit=200&kind=report_refused')).body.data as Row[];
    const mine = all.filter((e) => e.source_ref === 'strangers.xml');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ amount: '16.50', reported: { entries: 3 } });
    expect(mine[0]?.allowed_actions).toEqual(['dismiss']);
  });

  it('reconciliation: paid_but_refunded and return_not_applied are exceptions; a payout matched by an earlier statement is never missing later', async () => {
    const [kept, returnedAtBank] = await paid('51.00', '52.00');
    const failed = await processing('53.00');
    await deliverToInbox(
      'reject.xml',
      pain002(
        await fileOf(failed),
        `<OrgnlGrpInfAndSts><OrgnlMsgId>%ORIGINAL%</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.10</OrgnlMsgNmId></OrgnlGrpInfAndSts>
         <OrgnlPmtInfAndSts><TxInfAndSts><OrgnlEndToEndId>${failed}</OrgnlEndToEndId><TxSts>RJCT</TxSts>
         <StsRsnInf><Rsn><Cd>AC01</Cd></Rsn></StsRsnInf></TxInfAndSts></OrgnlPmtInfAndSts>`,
      ),
    );
    await waitForStatus(t.url, failed, 'REFUNDED');
    const today = new Date(Date.now() + 19_800_000).toISOString().slice(0, 10);
    const importStatement = async (id: string, entries: Parameters<typeof camt053>[0]['entries']) => {
      const res = await http(t.url, 'POST', '/admin/v1/reconciliation/statements', {
        rawBody: camt053({ id, date: today, account: `ACC-${engine}-${id}`, entries }),
        headers: { 'content-type': 'application/xml', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const runId = String(((res.body.runs as Row[])[0] as Row).run_id);
      const detail = (await admin(t.url, 'GET', `/admin/v1/reconciliation/runs/${runId}`)).body;
      return { runId, items: detail.items as Row[] };
    };
    const first = await importStatement('RECON-1', [
      { direction: 'debit', amount: '51.00', e2e: kept },
      { direction: 'debit', amount: '52.00', e2e: returnedAtBank },
      { direction: 'debit', amount: '53.00', e2e: failed },
      { direction: 'credit', amount: '52.00', e2e: returnedAtBank, returnReason: 'AC04' },
    ]);
    const result = (id: string, direction = 'debit') =>
      first.items.find((i) => i.payout_id === id && i.direction === direction)?.result;
    expect(result(kept as string)).toBe('matched');
    expect(result(failed)).toBe('paid_but_refunded');
    expect(result(returnedAtBank as string, 'credit')).toBe('return_not_applied');
    const queued = ((await admin(t.url, 'GET', '/admin/v1/exceptions?limit=200&state=open')).body.data as Row[]).filter(
      (e) => e.source === 'reconciliation' && e.source_ref === first.runId,
    );
    // (Payouts of the earlier tests paid today and absent from this statement are `missing` too.)
    expect(
      queued
        .map((e) => e.kind)
        .filter((k) => k !== 'missing')
        .sort(),
    ).toEqual(['paid_but_refunded', 'return_not_applied']);
    expect(queued.find((e) => e.kind === 'return_not_applied')?.allowed_actions).toEqual(['refund_in_full', 'dismiss']);

    // A second statement of the same day, without those debits: none of the payouts the first matched is missing.
    const second = await importStatement('RECON-2', [{ direction: 'credit', amount: '1.00', utr: 'SOMEONE' }]);
    const missing = second.items.filter((i) => i.result === 'missing').map((i) => i.payout_id);
    expect(missing).not.toContain(kept);
    expect(missing).not.toContain(returnedAtBank);

    // Closing the item from its run resolves its exception too (dismissed, with the same reason).
    const item = first.items.find((i) => i.result === 'paid_but_refunded') as Row;
    const closed = await admin(
      t.url,
      'POST',
      `/admin/v1/reconciliation/runs/${first.runId}/items/${String(item.item_id)}/close`,
      {
        reason: 'recovered from the beneficiary by the bank',
      },
    );
    expect(closed.status).toBe(200);
    const paidBut = queued.find((e) => e.kind === 'paid_but_refunded') as Row;
    expect(await exception(paidBut.exception_id)).toMatchObject({
      state: 'resolved',
      resolution: { action: 'dismiss', reason: 'recovered from the beneficiary by the bank' },
    });
    // And the other way round: the return the books lack, applied from the queue, closes its item.
    const notApplied = queued.find((e) => e.kind === 'return_not_applied') as Row;
    const resolved = await admin(t.url, 'POST', `/admin/v1/exceptions/${String(notApplied.exception_id)}/resolve`, {
      action: 'refund_in_full',
      reason: 'returned at the bank',
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect((await adminPayout(t.url, returnedAtBank as string)).status).toBe('REFUNDED');
    const after = (await admin(t.url, 'GET', `/admin/v1/reconciliation/runs/${first.runId}`)).body.items as Row[];
    expect(after.find((i) => i.result === 'return_not_applied')?.state).toBe('closed');
    await expectLedgerOk(t.url);
  });

  it('resolving: refund_in_full is the operator’s return, once; dismiss closes; the queue filters, exports and is counted', async () => {
    const [id] = await paid('44.00');
    await deliverToInbox('charges.xml', camt054(returnCredit(id as string, '43.50')));
    const [mismatch] = await exceptionsOf(id as string);
    expect(mismatch).toMatchObject({ kind: 'return_mismatch', allowed_actions: ['refund_in_full', 'dismiss'] });
    const before = await balance();
    const wrong = await admin(t.url, 'POST', `/admin/v1/exceptions/${String(mismatch?.exception_id)}/resolve`, {
      action: 'apply_as_reported',
      reason: 'try',
    });
    expect([wrong.status, (wrong.body.error as Row).code]).toEqual([409, 'action_not_allowed']);
    const done = await admin(t.url, 'POST', `/admin/v1/exceptions/${String(mismatch?.exception_id)}/resolve`, {
      action: 'refund_in_full',
      reason: 'bank charges of 0.50 deducted; the merchant gets the whole amount',
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({
      state: 'resolved',
      resolution: { action: 'refund_in_full' },
      allowed_actions: [],
    });
    expect((await adminPayout(t.url, id as string)).status).toBe('REFUNDED');
    const after = await balance();
    expect(Math.round((Number(after) - Number(before)) * 100)).toBe(4400);
    const twice = await admin(t.url, 'POST', `/admin/v1/exceptions/${String(mismatch?.exception_id)}/resolve`, {
      action: 'refund_in_full',
      reason: 'again',
    });
    expect([twice.status, (twice.body.error as Row).code]).toEqual([409, 'already_resolved']);
    expect(await balance()).toBe(after);

    const open = (await admin(t.url, 'GET', '/admin/v1/exceptions?state=open&limit=200')).body.data as Row[];
    expect(open.every((e) => e.state === 'open')).toBe(true);
    expect(open.map((e) => String(e.exception_id))).toEqual([...open.map((e) => String(e.exception_id))].sort());
    const first = open[0] as Row;
    const dismissed = await admin(t.url, 'POST', `/admin/v1/exceptions/${String(first.exception_id)}/resolve`, {
      action: 'dismiss',
      reason: 'looked into it',
    });
    expect(dismissed.body).toMatchObject({
      state: 'resolved',
      resolution: { action: 'dismiss', reason: 'looked into it' },
    });
    const csv = await http(t.url, 'GET', '/admin/v1/exceptions?format=csv', {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(String(csv.body.raw ?? csv.body)).toContain('exception_id,kind,state');
    const metrics = await fetch(`${t.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/payrail_exceptions_open\{kind="report_refused"\} [1-9]/);
    expect(metrics).toMatch(/payrail_exceptions_open\{kind="unknown_virtual_account"\} 0/);
    await expectLedgerOk(t.url);
  });
});
