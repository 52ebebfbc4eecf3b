import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMonth } from '../../src/domain/invoice.ts';
import { initiateOk, simulate, waitForCollectionStatus } from '../support/collectionFixtures.ts';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin, http } from '../support/merchantClient.ts';
import { fundedMerchant, payoutRequest, SANDBOX, waitForStatus, type Funded } from '../support/payoutFixtures.ts';
import { movableClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const run = promisify(execFile);
type Row = Record<string, unknown>;

/** The operator: Maharashtra (27). */
export const OPERATOR_ENV = {
  PAYRAIL_OPERATOR_LEGAL_NAME: 'Payrail Payments Private Limited',
  PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939F1ZV',
  PAYRAIL_OPERATOR_ADDRESS: '4th Floor, Example House, Lower Parel, Mumbai 400013',
  PAYRAIL_OPERATOR_STATE: '27',
};
/** A valid GSTIN of Karnataka (29), for a merchant across the state line. */
const KARNATAKA_GSTIN = '29AAGCR4375J1ZU';

/** IMPS at ₹5.05 (GST 0.909 → 0.91 each: three make 2.73, an odd number of paise), UPI collections at ₹1.00. */
const PLAN = {
  name: 'Invoice test',
  rules: { IMPS: { slabs: [{ flat: '5.05' }] }, UPI_COLLECTION: { slabs: [{ flat: '1.00' }] } },
};

/** pdftotext (Debian's poppler-utils): required under CI, else the PDF test says why it is skipped. */
async function hasPdftotext(): Promise<boolean> {
  try {
    await run('pdftotext', ['-v']);
    return true;
  } catch {
    return false;
  }
}
const PDFTOTEXT = await hasPdftotext();
if (!PDFTOTEXT && process.env.CI) throw new Error('pdftotext is missing (apt-get install poppler-utils)');
if (!PDFTOTEXT) process.stderr.write('invoices.test.ts: pdftotext not installed: the PDF text test is skipped\n');

/** The IST month the database is in now (ledger entries are stamped with its clock). */
async function currentMonth(t: TestServer): Promise<string> {
  const { rows } = await t.db.query<{ m: string }>(`SELECT to_char(now() AT TIME ZONE 'Asia/Kolkata', 'YYYY-MM') AS m`);
  return rows[0]?.m as string;
}

const nextMonth = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
};

describe.each(ENGINES)('tax invoices on %s', (engine) => {
  let t: TestServer;
  const clock = movableClock();
  let month: string;
  /** In the operator's state (no billing state): CGST + SGST. */
  let local: Funded;
  /** Registered in Karnataka: IGST. */
  let away: Funded;
  /** Charged nothing (no plan): no invoice. */
  let free: Funded;
  /** Its one payout failed before the run: the fee and its refund cancel, no invoice. */
  let failed: Funded;
  /** Its payout is invoiced, then fails: a credit line next month. */
  let late: Funded;
  let latePayout: string;
  let first: Row;

  const runMonth = (m: string) => admin(t.url, 'POST', '/admin/v1/invoices/run', { month: m });
  const pay = async (who: Funded, account = SANDBOX.success) => {
    const res = await who.client.post(
      '/payout/v1/initiate',
      payoutRequest(
        'nested',
        { wallet_id: who.merchant.wallet_id },
        {
          beneficiary: {
            beneficiary_name: 'Asha Rao',
            beneficiary_ifsc: SANDBOX.ifsc,
            beneficiary_acc_number: account,
          },
        },
      ),
    );
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    return res.data?.transaction_id as string;
  };
  const priced = async () => {
    const who = await fundedMerchant(t.url, 'v2', '10000.00');
    const res = await admin(t.url, 'PUT', `/admin/v1/merchants/${who.merchant.merchant_id}/pricing`, PLAN);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return who;
  };
  const invoiceOf = (answer: Row, merchantId: string) =>
    (answer.invoices as Row[]).find((i) => i.merchant_id === merchantId);

  beforeAll(async () => {
    t = await startTestServer(engine, { env: OPERATOR_ENV, clock });
    month = await currentMonth(t);
    [local, away, free, failed, late] = await Promise.all([
      priced(),
      priced(),
      fundedMerchant(t.url, 'v2'),
      priced(),
      priced(),
    ]);
    const patched = await admin(t.url, 'PATCH', `/admin/v1/merchants/${away.merchant.merchant_id}`, {
      legal_name: 'Away Traders LLP',
      gstin: KARNATAKA_GSTIN.toLowerCase(),
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ legal_name: 'Away Traders LLP', gstin: KARNATAKA_GSTIN, billing_state: '29' });

    const paid = await Promise.all([pay(local), pay(local), pay(local), pay(away), pay(free)]);
    const failing = await pay(failed, SANDBOX.failure);
    latePayout = await pay(late, SANDBOX.pending);
    const collection = await initiateOk(local.client, { amount: '50.00' });
    expect((await simulate(local.client, collection.txnId, 'SUCCESS')).status).toBe(200);
    await waitForCollectionStatus(local.client, collection.txnId, 'SUCCESS');
    for (const id of paid) await waitForStatus(t.url, id, 'SUCCESS', 15_000);
    await waitForStatus(t.url, failing, 'REFUNDED', 15_000);
    await waitForStatus(t.url, latePayout, 'PENDING', 15_000);

    const res = await runMonth(month);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    first = res.body;
  }, 90_000);
  afterAll(() => t?.close());

  it('issues one invoice per merchant with fees, within the state as CGST + SGST (odd paise to SGST)', () => {
    expect(first.already_run).toBe(false);
    const inv = invoiceOf(first, local.merchant.merchant_id) as Row;
    expect(inv).toMatchObject({
      month,
      lines: [
        { product: 'IMPS', count: 3, fees: '15.15', tax: '2.73' },
        { product: 'UPI_COLLECTION', count: 1, fees: '1.00', tax: '0.18' },
      ],
      taxable: '16.15',
      cgst: '1.45',
      sgst: '1.46',
      igst: '0.00',
      total: '19.06',
      sac: '997158',
      gst_rate: '18',
      place_of_supply: '27',
      supplier: {
        legal_name: OPERATOR_ENV.PAYRAIL_OPERATOR_LEGAL_NAME,
        gstin: OPERATOR_ENV.PAYRAIL_OPERATOR_GSTIN,
        address: OPERATOR_ENV.PAYRAIL_OPERATOR_ADDRESS,
        state: '27',
        state_name: 'Maharashtra',
      },
      recipient: { gstin: null, state: '27' },
    });
    const year = Number(month.slice(0, 4)) - (Number(month.slice(5)) >= 4 ? 0 : 1);
    expect(inv.number).toMatch(new RegExp(`^INV/${year}-${String((year + 1) % 100).padStart(2, '0')}/00000[1-4]$`));
  });

  it('puts all of the tax in IGST across states, to the recipient named by its legal name and GSTIN', () => {
    expect(invoiceOf(first, away.merchant.merchant_id)).toMatchObject({
      lines: [{ product: 'IMPS', count: 1, fees: '5.05', tax: '0.91' }],
      taxable: '5.05',
      cgst: '0.00',
      sgst: '0.00',
      igst: '0.91',
      total: '5.96',
      place_of_supply: '29',
      recipient: { legal_name: 'Away Traders LLP', gstin: KARNATAKA_GSTIN, state: '29', state_name: 'Karnataka' },
    });
  });

  it('issues none without fees, and leaves out a fee refunded before its month was invoiced', () => {
    expect(invoiceOf(first, free.merchant.merchant_id)).toBeUndefined();
    expect(invoiceOf(first, failed.merchant.merchant_id)).toBeUndefined();
    // The merchants with fees, numbered in one series without gaps, in merchant order.
    const invoices = first.invoices as Row[];
    expect(invoices.map((i) => i.merchant_id)).toEqual([local, away, late].map((m) => m.merchant.merchant_id).sort());
    const numbers = invoices.map((i) => Number(String(i.number).split('/')[2]));
    expect(numbers).toEqual([numbers[0], (numbers[0] as number) + 1, (numbers[0] as number) + 2]);
  });

  it('answers a month run again with the invoices it issued, unchanged', async () => {
    const again = await runMonth(month);
    expect(again.status).toBe(200);
    expect(again.body.already_run).toBe(true);
    expect(again.body.invoices).toEqual(first.invoices);
  });

  it('refuses a month that has not begun, and one that is no month', async () => {
    const future = await runMonth(nextMonth(month));
    expect(future.status).toBe(400);
    expect(future.body).toMatchObject({ error: { code: 'invalid_request' } });
    expect((future.body.error as Row).message).toMatch(/has not begun/);
    for (const bad of ['2026-13', '26-11', '2026-1', '']) {
      const res = await runMonth(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
  });

  it('lists and reads invoices, filtered by merchant and month, paged', async () => {
    const all = await admin(t.url, 'GET', `/admin/v1/invoices?month=${month}&limit=2`);
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.has_more).toBe(true);
    const rest = await admin(t.url, 'GET', `/admin/v1/invoices?month=${month}&cursor=${String(all.body.next_cursor)}`);
    expect([...(all.body.data as Row[]), ...(rest.body.data as Row[])].map((i) => i.invoice_id).sort()).toEqual(
      (first.invoices as Row[]).map((i) => i.invoice_id).sort(),
    );
    const mine = await admin(t.url, 'GET', `/admin/v1/invoices?merchant_id=${away.merchant.merchant_id}`);
    expect((mine.body.data as Row[]).map((i) => i.merchant_id)).toEqual([away.merchant.merchant_id]);
    const inv = invoiceOf(first, away.merchant.merchant_id) as Row;
    const one = await admin(t.url, 'GET', `/admin/v1/invoices/${String(inv.invoice_id)}`);
    expect(one.body).toEqual(inv);
    expect((await admin(t.url, 'GET', '/admin/v1/invoices/IV00000000000000000000000000')).status).toBe(404);
    expect((await admin(t.url, 'GET', '/admin/v1/invoices/nope')).status).toBe(404);
    expect((await admin(t.url, 'GET', `/admin/v1/invoices/${String(inv.invoice_id)}?format=xml`)).status).toBe(400);
    expect((await admin(t.url, 'GET', '/admin/v1/invoices?merchant_id=nope')).status).toBe(400);
  });

  it('answers an invoice as CSV, a row per line with the totals', async () => {
    const inv = invoiceOf(first, local.merchant.merchant_id) as Row;
    const res = await fetch(`${t.url}/admin/v1/invoices/${String(inv.invoice_id)}?format=csv`, {
      headers: { authorization: `Bearer ${'test-admin-token-of-at-least-32-characters'}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = (await res.text()).trim().split('\r\n');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^number,issued_at,month,merchant_id,/);
    expect(rows[1]).toContain(`${String(inv.number)},`);
    expect(rows[1]).toContain(',charge,IMPS,3,15.15,2.73,16.15,1.45,1.46,0.00,19.06');
    expect(rows[2]).toContain(',charge,UPI_COLLECTION,1,1.00,0.18,16.15,1.45,1.46,0.00,19.06');
  });

  it.skipIf(!PDFTOTEXT)(
    'answers an invoice as a PDF whose text has the number, both GSTINs and the totals',
    async () => {
      const inv = invoiceOf(first, away.merchant.merchant_id) as Row;
      const res = await fetch(`${t.url}/admin/v1/invoices/${String(inv.invoice_id)}?format=pdf`, {
        headers: { authorization: `Bearer ${'test-admin-token-of-at-least-32-characters'}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toContain(`${String(inv.number).replaceAll('/', '-')}.pdf`);
      const dir = await mkdtemp(join(tmpdir(), 'payrail-invoice-'));
      try {
        const file = join(dir, 'invoice.pdf');
        await writeFile(file, Buffer.from(await res.arrayBuffer()));
        const { stdout } = await run('pdftotext', ['-layout', file, '-']);
        const text = stdout.replace(/[ \t]+/g, ' ');
        expect(text).toContain('Tax invoice');
        expect(text).toContain(String(inv.number));
        expect(text).toContain(OPERATOR_ENV.PAYRAIL_OPERATOR_GSTIN);
        expect(text).toContain(KARNATAKA_GSTIN);
        expect(text).toContain('Away Traders LLP');
        expect(text).toContain('997158');
        expect(text).toMatch(/Taxable value 5\.05/);
        expect(text).toMatch(/IGST @ 18% 0\.91/);
        expect(text).toMatch(/Total \(INR\) 5\.96/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it("shows a merchant its own invoices in the console, and another merchant's as not found", async () => {
    const session = await ConsoleSession.merchant(t.url, away.merchant.api_key, away.merchant.secret_key);
    const list = await session.request('GET', '/console/api/merchant/invoices');
    expect(list.status).toBe(200);
    const own = invoiceOf(first, away.merchant.merchant_id) as Row;
    expect(list.body.data).toEqual([own]);
    // A merchant filter in the query is the operator's: the console reads its own rows whatever it says.
    const filtered = await session.request('GET', `/console/api/merchant/invoices?month=${month}`);
    expect(filtered.body.data).toEqual([own]);
    expect((await session.request('GET', `/console/api/merchant/invoices/${String(own.invoice_id)}`)).body).toEqual(
      own,
    );
    const other = invoiceOf(first, local.merchant.merchant_id) as Row;
    expect((await session.request('GET', `/console/api/merchant/invoices/${String(other.invoice_id)}`)).status).toBe(
      404,
    );
    const pdf = await fetch(`${t.url}/console/api/merchant/invoices/${String(own.invoice_id)}?format=pdf`, {
      headers: { cookie: session.cookie },
    });
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('gives back on the next invoice, as a credit line, a fee refunded after its invoice', async () => {
    const invoiced = invoiceOf(first, late.merchant.merchant_id) as Row;
    expect(invoiced.lines).toEqual([{ product: 'IMPS', count: 1, fees: '5.05', tax: '0.91' }]);
    const failedNow = await admin(t.url, 'POST', `/admin/v1/payouts/${latePayout}/resolve`, { status: 'FAILED' });
    expect(failedNow.status, JSON.stringify(failedNow.body)).toBe(200);
    await waitForStatus(t.url, latePayout, 'REFUNDED', 15_000);
    // Into the next month (the server's clock): it has begun, and can be run.
    const next = nextMonth(month);
    clock.advance((parseMonth(next)?.start.getTime() as number) - clock() + 60_000);
    const res = await runMonth(next);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.invoices).toHaveLength(1);
    expect(invoiceOf(res.body, late.merchant.merchant_id)).toMatchObject({
      month: next,
      lines: [{ kind: 'credit', product: 'IMPS', count: 1, fees: '-5.05', tax: '-0.91' }],
      taxable: '-5.05',
      cgst: '-0.45',
      sgst: '-0.46',
      igst: '0.00',
      total: '-5.96',
    });
  });

  it('refuses to change an issued invoice or delete one', async () => {
    const id = String((first.invoices as Row[])[0]?.invoice_id);
    await expect(t.db.query('UPDATE invoices SET total = 0 WHERE id = $1', [id])).rejects.toThrow(/never changed/);
    await expect(t.db.query('DELETE FROM invoice_lines WHERE invoice_id = $1', [id])).rejects.toThrow(/never changed/);
    await expect(t.db.query('DELETE FROM invoice_entries')).rejects.toThrow(/never changed/);
  });

  it('takes the recipient fields on PATCH, refusing a GSTIN that fails its check or disagrees with the state', async () => {
    const id = free.merchant.merchant_id;
    const bad = await admin(t.url, 'PATCH', `/admin/v1/merchants/${id}`, { gstin: '27AAPFU0939F1ZW' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_request' } });
    expect((bad.body.error as Row).message).toMatch(/^gstin .*check character/);
    const short = await admin(t.url, 'PATCH', `/admin/v1/merchants/${id}`, { gstin: '27AAPFU0939' });
    expect((short.body.error as Row).message).toMatch(/^gstin .*15 characters/);
    const state = await admin(t.url, 'PATCH', `/admin/v1/merchants/${id}`, { billing_state: '42' });
    expect(state.status).toBe(400);
    expect((state.body.error as Row).message).toMatch(/^billing_state/);
    const clash = await admin(t.url, 'PATCH', `/admin/v1/merchants/${id}`, {
      gstin: KARNATAKA_GSTIN,
      billing_state: '27',
    });
    expect(clash.status).toBe(400);
    expect((clash.body.error as Row).message).toMatch(/^billing_state: .*registered in state 29/);
    const ok = await admin(t.url, 'PATCH', `/admin/v1/merchants/${id}`, {
      billing_state: '07',
      legal_name: ' Free Co ',
    });
    expect(ok.body).toMatchObject({ legal_name: 'Free Co', gstin: null, billing_state: '07' });
    const cleared = await admin(t.url, 'PATCH', `/admin/v1/merchants/${id}`, { billing_state: null, legal_name: null });
    expect(cleared.body).toMatchObject({ legal_name: null, gstin: null, billing_state: null });
    const audit = await admin(t.url, 'GET', '/admin/v1/audit?limit=20');
    expect((audit.body.data as Row[]).map((e) => e.detail)).toContain(
      '{"legal_name":" Free Co ","billing_state":"07"}',
    );
  });
});

describe.each(ENGINES)('tax invoices without the operator settings on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_OPERATOR_GSTIN: OPERATOR_ENV.PAYRAIL_OPERATOR_GSTIN } });
  });
  afterAll(() => t?.close());

  it('answers 409 invoice_settings_missing naming what is missing, and lists none', async () => {
    const res = await admin(t.url, 'POST', '/admin/v1/invoices/run', { month: '2026-04' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: 'invoice_settings_missing' } });
    expect((res.body.error as Row).message).toContain(
      'PAYRAIL_OPERATOR_LEGAL_NAME, PAYRAIL_OPERATOR_ADDRESS, PAYRAIL_OPERATOR_STATE',
    );
    expect((await admin(t.url, 'GET', '/admin/v1/invoices')).body).toEqual({
      data: [],
      has_more: false,
      next_cursor: null,
    });
  });

  it('refuses a viewer the run (finance role)', async () => {
    const created = await admin(t.url, 'POST', '/admin/v1/operators', {
      email: 'viewer@example.com',
      role: 'viewer',
      password: 'correct horse battery',
      name: 'viewer',
    });
    expect(created.status).toBe(201);
    const viewer = await ConsoleSession.signIn(t.url, 'viewer@example.com');
    const res = await viewer.request('POST', '/admin/v1/invoices/run', { month: '2026-04' });
    expect(res.status).toBe(403);
    expect((await viewer.request('GET', '/admin/v1/invoices')).status).toBe(200);
    expect((await http(t.url, 'GET', '/admin/v1/invoices')).status).toBe(401);
  });
});
