import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../server/test/support/merchantClient.ts';
import { payoutRequest, SANDBOX } from '../../server/test/support/payoutFixtures.ts';
import { admin, cli, createMerchant, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

/** The operator: Maharashtra (27). */
const OPERATOR_ENV = {
  PAYRAIL_OPERATOR_LEGAL_NAME: 'Payrail Payments Private Limited',
  PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939F1ZV',
  PAYRAIL_OPERATOR_ADDRESS: 'Mumbai 400013',
  PAYRAIL_OPERATOR_STATE: '27',
};

let t: TestServer;
let dir: string;
let env: Record<string, string>;
let month: string;
let merchantId: string;
const op = (...args: string[]) => cli(args, env);

beforeAll(async () => {
  [t, dir] = await Promise.all([
    startTestServer('pglite', { env: OPERATOR_ENV }),
    mkdtemp(join(tmpdir(), 'payrail-invoices-cli-')),
  ]);
  env = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
  const m = await createMerchant(t.url, 'Invoice CLI Co', '1000.00');
  merchantId = m.merchant_id;
  const plan = { name: 'CLI', rules: { IMPS: { slabs: [{ flat: '10.00' }] } } };
  expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/pricing`, plan)).status).toBe(200);
  const client = await MerchantClient.connect(t.url, m, 'v2');
  const res = await client.post(
    '/payout/v1/initiate',
    payoutRequest('nested', { wallet_id: m.wallet_id, beneficiary_ifsc: SANDBOX.ifsc }),
  );
  expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
  const { rows } = await t.db.query<{ m: string }>(`SELECT to_char(now() AT TIME ZONE 'Asia/Kolkata', 'YYYY-MM') AS m`);
  month = rows[0]?.m as string;
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('payrail invoices', () => {
  let invoiceId: string;
  let number: string;

  it('runs a month: a table of the invoices issued, and the same invoices when run again', async () => {
    const first = await op('invoices', 'run', '--month', month);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^INVOICE\s+NUMBER\s+MONTH\s+MERCHANT\s+TAXABLE\s+TAX\s+TOTAL$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^IV\\w{26}\\s+INV/\\d{4}-\\d{2}/000001\\s+${month}\\s+${merchantId}\\s+10\\.00\\s+CGST 0\\.90 \\+ SGST 0\\.90\\s+11\\.80$`,
      ),
    );
    expect(lines.at(-1)).toBe(`Issued 1 invoice for ${month}.`);
    const again = await op('invoices', 'run', '--month', month, '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ month, already_run: true, invoices: [{ merchant_id: merchantId }] });
    invoiceId = again.json.invoices[0].invoice_id;
    number = again.json.invoices[0].number;
    expect((await op('invoices', 'run', '--month', month)).stdout).toContain(
      `${month} was run before: 1 invoice issued then.`,
    );
  });

  it('lists invoices by month and merchant', async () => {
    const list = await op('invoices', 'list', '--month', month, '--merchant', merchantId, '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(list.json.data.map((i: { invoice_id: string }) => i.invoice_id)).toEqual([invoiceId]);
    const none = await op('invoices', 'list', '--month', '2020-01');
    expect(none.stdout.trim()).toBe('No invoices.');
  });

  it('downloads an invoice as PDF to a file, as CSV and JSON to standard output', async () => {
    const out = join(dir, 'invoice.pdf');
    const pdf = await op('invoices', 'download', invoiceId, '--format', 'pdf', '--out', out);
    expect(pdf.code, pdf.stderr).toBe(0);
    expect(pdf.stdout).toMatch(/^Wrote .*invoice\.pdf \(pdf, \d+ bytes\)\./);
    expect((await readFile(out)).subarray(0, 5).toString()).toBe('%PDF-');
    const csv = await op('invoices', 'download', invoiceId, '--format', 'csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toContain(`${number},`);
    expect(csv.stdout).toContain(',charge,IMPS,1,10.00,1.80,10.00,0.90,0.90,0.00,11.80');
    const json = await op('invoices', 'download', invoiceId, '--format', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({ invoice_id: invoiceId, number, total: '11.80' });
  });

  it('refuses a bad month before asking, and exits by the server’s answer otherwise', async () => {
    const bad = await op('invoices', 'run', '--month', '2026-13');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected an IST month like 2026-11');
    const future = await op('invoices', 'run', '--month', '2999-01', '--json');
    expect(future.code).toBe(4);
    expect(future.errJson.error).toMatchObject({ code: 'invalid_request' });
    const unknown = await op('invoices', 'download', 'IV00000000000000000000000000', '--format', 'csv');
    expect(unknown.code).toBe(5);
    const format = await op('invoices', 'download', invoiceId, '--format', 'xml');
    expect(format.code).toBe(2);
  });

  it('sets the invoice recipient with merchant update, refusing a GSTIN that fails its check', async () => {
    const bad = await op('merchant', 'update', merchantId, '--gstin', '29AAGCR4375J1ZV', '--json');
    expect(bad.code).toBe(4);
    expect(bad.errJson.error.message).toMatch(/^gstin is not a valid GSTIN: fails its check character/);
    const ok = await op(
      'merchant',
      'update',
      merchantId,
      '--legal-name',
      'Invoice CLI Pvt Ltd',
      '--gstin',
      '29AAGCR4375J1ZU',
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/Legal name \(invoices\):\s+Invoice CLI Pvt Ltd/);
    expect(ok.stdout).toMatch(/GSTIN:\s+29AAGCR4375J1ZU/);
    expect(ok.stdout).toMatch(/Billing state:\s+29/);
    const cleared = await op('merchant', 'update', merchantId, '--gstin', 'none', '--billing-state', 'none', '--json');
    expect(cleared.json).toMatchObject({ legal_name: 'Invoice CLI Pvt Ltd', gstin: null, billing_state: null });
  });

  it('explains itself in --help', async () => {
    const help = await op('invoices', 'download', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--format <format>');
    expect(help.stdout).toContain('payrail invoices download IV01… --format pdf --out INV-2026-27-000001.pdf');
  });
});
