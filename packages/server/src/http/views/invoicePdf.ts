import { formatPaise } from '@payrail/protocol';
import PDFDocument from 'pdfkit';
import { stateLabel } from '../../domain/gstin.ts';
import { percentText, type InvoiceLine } from '../../domain/invoice.ts';
import { istDateTime } from '../../domain/istPeriod.ts';
import type { Invoice } from '../../services/InvoiceService.ts';

/** What each product's fees are, in words. */
const PRODUCT_NAMES: Record<string, string> = {
  IMPS: 'IMPS payout fees',
  NEFT: 'NEFT payout fees',
  RTGS: 'RTGS payout fees',
  UPI_COLLECTION: 'UPI collection fees',
  DEPOSIT: 'Deposit fees',
};

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const lineLabel = (l: InvoiceLine) =>
  `${l.kind === 'credit' ? 'Credit: ' : ''}${PRODUCT_NAMES[l.product] ?? `${l.product} fees`}` +
  (l.kind === 'credit' ? ' given back (invoiced earlier)' : '');

/** "November 2026" for "2026-11". */
const monthName = (month: string) => `${MONTHS[Number(month.slice(5, 7)) - 1] ?? month} ${month.slice(0, 4)}`;

/**
 * One invoice as a PDF (A4, PDFKit's standard Helvetica: names are printed in its Latin alphabet), with what a GST
 * tax invoice states: supplier and recipient with GSTINs and states, number and date, place of supply, SAC, taxable
 * value per line, the tax split and the total. Fixed creation date (the issue time): the same invoice is the same file.
 */
export function invoicePdf(i: Invoice): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: {
      Title: `Tax invoice ${i.number}`,
      Author: i.supplier.legalName,
      Subject: `Fees for ${monthName(i.month)}`,
      Creator: 'Payrail',
      CreationDate: i.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const left = 50;
  const width = 495;
  const intra = i.recipient.state === i.supplier.state;
  const half = percentText(Math.floor(i.gstRateBp / 2));

  doc.font('Helvetica-Bold').fontSize(18).text('Tax invoice', left, 50);
  doc.font('Helvetica').fontSize(10);
  doc.text(`Invoice number: ${i.number}`, left, 80);
  doc.text(`Date of issue: ${istDateTime(i.issuedAt).slice(0, 10)}`);
  doc.text(`Period: ${monthName(i.month)} (financial year ${i.financialYear})`);

  const block = (title: string, y: number, x: number, rows: string[]) => {
    doc.font('Helvetica-Bold').fontSize(10).text(title, x, y, { width: 235 });
    doc.font('Helvetica').fontSize(10);
    for (const row of rows) doc.text(row, { width: 235 });
    return doc.y;
  };
  const top = 140;
  const supplierEnd = block('Supplier', top, left, [
    i.supplier.legalName,
    ...(i.supplier.address ? [i.supplier.address] : []),
    `GSTIN: ${i.supplier.gstin ?? ''}`,
    `State: ${stateLabel(i.supplier.state)}`,
  ]);
  const recipientEnd = block('Recipient', top, left + 260, [
    i.recipient.legalName,
    `GSTIN: ${i.recipient.gstin ?? 'none (unregistered)'}`,
    `State: ${stateLabel(i.recipient.state)}`,
    `Merchant: ${i.merchantId}`,
  ]);
  let y = Math.max(supplierEnd, recipientEnd) + 16;
  doc.text(`Place of supply: ${stateLabel(i.recipient.state)}`, left, y);
  doc.text(`SAC: ${i.sac} (payment services)    Reverse charge: No`);
  y = doc.y + 14;

  // The lines: description, SAC, count, taxable value, GST.
  const cols = [
    { title: 'Description', x: left, w: 225, align: 'left' as const },
    { title: 'SAC', x: left + 230, w: 50, align: 'left' as const },
    { title: 'Count', x: left + 280, w: 55, align: 'right' as const },
    { title: 'Taxable value (INR)', x: left + 340, w: 80, align: 'right' as const },
    { title: 'GST (INR)', x: left + 425, w: 70, align: 'right' as const },
  ];
  const row = (cells: string[], bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    const heights = cells.map((c, n) => doc.heightOfString(c, { width: (cols[n] as { w: number }).w }));
    cells.forEach((c, n) => {
      const col = cols[n] as (typeof cols)[number];
      doc.text(c, col.x, y, { width: col.w, align: col.align });
    });
    y += Math.max(...heights) + 6;
  };
  row(
    cols.map((c) => c.title),
    true,
  );
  doc
    .moveTo(left, y - 3)
    .lineTo(left + width, y - 3)
    .stroke();
  for (const l of i.lines) row([lineLabel(l), i.sac, String(l.count), formatPaise(l.fees), formatPaise(l.tax)]);
  doc
    .moveTo(left, y - 3)
    .lineTo(left + width, y - 3)
    .stroke();

  // The totals, right-aligned under the amounts.
  const total = (label: string, amount: bigint, bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    doc.text(label, left + 230, y, { width: 180, align: 'right' });
    doc.text(formatPaise(amount), left + 415, y, { width: 80, align: 'right' });
    y += 16;
  };
  y += 4;
  total('Taxable value', i.taxable);
  if (intra) {
    total(`CGST @ ${half}%`, i.cgst);
    total(`SGST @ ${half}%`, i.sgst);
  } else {
    total(`IGST @ ${percentText(i.gstRateBp)}%`, i.igst);
  }
  total('Total (INR)', i.total, true);

  doc.font('Helvetica').fontSize(8);
  doc.text(
    'The GST shown is the sum of the tax charged on each transaction when its fee was debited. Credit lines give ' +
      'back fees (and their tax) of transactions invoiced earlier and refunded since. This invoice was issued ' +
      'electronically and needs no signature.',
    left,
    y + 20,
    { width },
  );
  doc.end();
  return done;
}
