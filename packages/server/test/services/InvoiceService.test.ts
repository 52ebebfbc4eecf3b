import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvoiceService, type InvoiceTerms } from '../../src/services/InvoiceService.ts';
import { createMerchant, type TestMerchant } from '../support/merchantClient.ts';
import { fixedClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const TERMS: InvoiceTerms = {
  supplier: {
    legalName: 'Payrail Payments Private Limited',
    gstin: '27AAPFU0939F1ZV',
    address: 'Mumbai 400013',
    state: '27',
  },
  prefix: 'INV',
  gstRateBp: 1800,
};

/** An IST wall time as an instant: "2027-03-15T12:00" → 06:30 UTC. */
const ist = (wall: string) => new Date(`${wall}:00+05:30`);

/**
 * A collection's fee and its GST charged at `at` (the ledger's created_at), both sides, as the database writes them
 * on a collection's credit: for fees of any month, which the database's clock alone cannot make.
 */
async function charge(t: TestServer, m: TestMerchant, at: Date, fee: bigint, gst: bigint): Promise<void> {
  const collection = `CT${randomBytes(13).toString('hex').toUpperCase().slice(0, 26)}`;
  await t.db.query(
    `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, collection_id, created_at)
     VALUES ($1, 'collection_fee', $2, 0, $5, $6), ($1, 'collection_fee_gst', $3, 0, $5, $6),
            ('PW_FEES', 'collection_fee', $4, NULL, $5, $6), ('PW_GST', 'collection_fee_gst', $7, NULL, $5, $6)`,
    [m.wallet_id, String(-fee), String(-gst), String(fee), collection, at, String(gst)],
  );
}

describe.each(ENGINES)('the invoice run on %s', (engine) => {
  let t: TestServer;
  /** After every month below: each can be run. */
  const clock = fixedClock(ist('2027-05-10T10:00').getTime());
  let service: InvoiceService;
  let a: TestMerchant;
  let b: TestMerchant;

  beforeAll(async () => {
    t = await startTestServer(engine);
    service = new InvoiceService(t.db, TERMS, clock);
    [a, b] = await Promise.all([createMerchant(t.url, 'Alpha', '1000.00'), createMerchant(t.url, 'Beta', '1000.00')]);
  });
  afterAll(() => t?.close());

  it('numbers March in the financial year 2026-27 and starts April at 000001 under 2027-28', async () => {
    await charge(t, a, ist('2027-03-01T00:00'), 100n, 18n);
    await charge(t, a, ist('2027-03-31T23:59'), 101n, 18n);
    await charge(t, a, ist('2027-04-01T00:00'), 200n, 36n);
    const march = await service.run('2027-03');
    expect(march.invoices.map((i) => [i.number, i.merchantId, i.financialYear])).toEqual([
      ['INV/2026-27/000001', a.merchant_id, '2026-27'],
    ]);
    expect(march.invoices[0]?.lines).toEqual([
      { kind: 'charge', product: 'UPI_COLLECTION', count: 2, fees: 201n, tax: 36n },
    ]);
    expect(march.invoices[0]).toMatchObject({ taxable: 201n, cgst: 18n, sgst: 18n, igst: 0n, total: 237n });

    // Charged in March, but committed after March was run (a transaction still open then): April's invoice.
    await charge(t, b, ist('2027-03-31T23:00'), 300n, 54n);
    const april = await service.run('2027-04');
    expect(april.invoices.map((i) => [i.number, i.merchantId, i.month])).toEqual(
      [
        [a.merchant_id, 200n],
        [b.merchant_id, 300n],
      ]
        .sort(([x], [y]) => String(x).localeCompare(String(y)))
        .map(([id], n) => [`INV/2027-28/00000${n + 1}`, id, '2027-04']),
    );
    expect(april.invoices.map((i) => i.taxable).sort()).toEqual([200n, 300n]);
  });

  it('issues nothing for a month with nothing left to invoice, and takes no number for it', async () => {
    const february = await service.run('2027-02');
    expect(february).toMatchObject({ month: '2027-02', invoices: [], alreadyRun: false });
    await charge(t, a, ist('2027-05-02T09:00'), 50n, 9n);
    const may = await service.run('2027-05');
    expect(may.invoices.map((i) => i.number)).toEqual(['INV/2027-28/000003']);
    // March again: the invoice it issued, not the fees since.
    expect((await service.run('2027-03')).invoices.map((i) => i.number)).toEqual(['INV/2026-27/000001']);
  });

  it('runs a month once when two runs of it meet', async () => {
    await charge(t, a, ist('2027-01-15T12:00'), 10n, 2n);
    await charge(t, b, ist('2027-01-15T12:00'), 10n, 2n);
    const [one, two] = await Promise.all([service.run('2027-01'), service.run('2027-01')]);
    expect([one.alreadyRun, two.alreadyRun].sort()).toEqual([false, true]);
    expect(one.invoices).toEqual(two.invoices);
    expect(one.invoices.map((i) => i.number)).toEqual(['INV/2026-27/000002', 'INV/2026-27/000003']);
  });

  it('starts each run where the last left off, and still covers a fee committed late', async () => {
    // Fees of months long past: made more than two days before the database's now, so a run can move past them.
    const c = await createMerchant(t.url, 'Gamma', '1000.00');
    await charge(t, c, ist('2026-06-10T12:00'), 400n, 72n);
    const june = await service.run('2026-06');
    expect(june.invoices.map((i) => [i.merchantId, i.taxable])).toEqual([[c.merchant_id, 400n]]);
    const { rows } = await t.db.query<{ month: string; scan_from: bigint; next_scan_from: bigint }>(
      'SELECT month, scan_from, next_scan_from FROM invoice_runs ORDER BY created_at DESC LIMIT 1',
    );
    expect(rows[0]?.month).toBe('2026-06');
    expect(BigInt(rows[0]?.next_scan_from ?? 0)).toBeGreaterThan(0n);
    // A fee of June written after June's run: July's run, which starts past June's entries, finds it.
    await charge(t, c, ist('2026-06-20T12:00'), 5n, 1n);
    const july = await service.run('2026-07');
    expect(july.invoices.map((i) => [i.merchantId, i.taxable, i.month])).toEqual([[c.merchant_id, 5n, '2026-07']]);
    const { rows: after } = await t.db.query<{ scan_from: bigint }>(
      `SELECT scan_from FROM invoice_runs WHERE month = '2026-07'`,
    );
    expect(BigInt(after[0]?.scan_from ?? 0)).toBeGreaterThan(0n);
  });

  it('refuses a month not begun by the clock, and runs without the supplier settings', async () => {
    await expect(service.run('2027-06')).rejects.toThrow(/2027-06 has not begun/);
    const bare = new InvoiceService(t.db, { ...TERMS, supplier: { gstin: TERMS.supplier.gstin } }, clock);
    await expect(bare.run('2027-04')).rejects.toMatchObject({
      missing: ['PAYRAIL_OPERATOR_LEGAL_NAME', 'PAYRAIL_OPERATOR_ADDRESS', 'PAYRAIL_OPERATOR_STATE'],
    });
  });
});
