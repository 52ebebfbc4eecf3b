import {
  dateTime,
  idParams,
  integer,
  nullableText,
  pageQueryProperties,
  pageSchema,
  rupeesText,
  text,
} from '../common.ts';

/**
 * Monthly GST tax invoices for the fees a merchant was charged (docs/operator/charging-merchants.md, "Tax invoices"):
 * run a month (finance), list and read them (viewer; a merchant its own in the console), as JSON, CSV or PDF.
 */

/** How one invoice is answered: JSON (default), `pdf` (application/pdf) or `csv` (its lines, one per row). */
export const INVOICE_FORMATS = ['json', 'pdf', 'csv'] as const;

const monthPattern = '^[0-9]{4}-(0[1-9]|1[0-2])$';

export const invoiceIdParam = idParams('invoice_id', { type: 'string', maxLength: 40 });

export const invoiceRunBody = {
  type: 'object',
  required: ['month'],
  additionalProperties: false,
  properties: {
    month: {
      type: 'string',
      pattern: monthPattern,
      description: 'The IST calendar month to invoice, YYYY-MM; it must have begun',
    },
  },
} as const;

const invoiceLine = {
  type: 'object',
  required: ['product', 'count', 'fees', 'tax'],
  properties: {
    kind: {
      type: 'string',
      enum: ['credit'],
      description: 'Present on a credit line: fees given back after an earlier invoice (negative fees and tax)',
    },
    product: { ...text, description: 'IMPS, NEFT, RTGS, UPI_COLLECTION (DEPOSIT when priced)' },
    count: { ...integer, description: 'Transactions charged (or given their fee back, on a credit line)' },
    fees: { ...rupeesText, description: 'The taxable value: fees charged, negative on a credit line' },
    tax: { ...rupeesText, description: 'The GST charged with those fees, as it was debited' },
  },
} as const;

const invoiceParty = {
  type: 'object',
  required: ['legal_name', 'gstin', 'state', 'state_name'],
  properties: {
    legal_name: text,
    gstin: { ...nullableText, description: 'null for a recipient without a GSTIN' },
    address: { ...nullableText, description: "The supplier's address (PAYRAIL_OPERATOR_ADDRESS)" },
    state: { ...text, description: 'Two-digit GST state code' },
    state_name: text,
  },
} as const;

export const invoiceView = {
  type: 'object',
  required: [
    'invoice_id',
    'number',
    'merchant_id',
    'month',
    'lines',
    'taxable',
    'cgst',
    'sgst',
    'igst',
    'total',
    'issued_at',
  ],
  properties: {
    invoice_id: text,
    number: { ...text, description: '<PAYRAIL_INVOICE_PREFIX>/<financial year>/<number>, e.g. INV/2026-27/000001' },
    financial_year: { ...text, description: 'April to March, of the invoiced month: 2026-27' },
    merchant_id: text,
    month: { ...text, description: 'The IST month invoiced, YYYY-MM' },
    supplier: invoiceParty,
    recipient: invoiceParty,
    place_of_supply: { ...text, description: "The recipient's state code" },
    sac: { ...text, description: 'Services Accounting Code: 997158' },
    gst_rate: { ...text, description: 'PAYRAIL_GST_RATE when issued, percent' },
    lines: { type: 'array', items: invoiceLine },
    taxable: rupeesText,
    cgst: { ...rupeesText, description: 'Within a state: half the GST collected, rounded down' },
    sgst: { ...rupeesText, description: 'Within a state: the rest of the GST collected' },
    igst: { ...rupeesText, description: 'Across states: all the GST collected' },
    total: rupeesText,
    issued_at: dateTime,
  },
} as const;

export const invoiceRunAnswer = {
  type: 'object',
  required: ['month', 'already_run', 'invoices'],
  properties: {
    month: text,
    already_run: {
      type: 'boolean',
      description: 'True when the month had been run: these are the invoices that run issued, unchanged',
    },
    invoices: { type: 'array', items: invoiceView },
  },
} as const;

export const invoiceListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string', maxLength: 40 },
    month: { type: 'string', pattern: monthPattern },
    ...pageQueryProperties,
  },
} as const;

export const invoicePage = pageSchema(invoiceView);

export const invoiceFormatQuery = {
  type: 'object',
  properties: { format: { type: 'string', enum: INVOICE_FORMATS } },
} as const;

/** The merchant console's list: its own invoices, by month. */
export const consoleInvoiceQuery = {
  type: 'object',
  properties: { month: { type: 'string', pattern: monthPattern }, ...pageQueryProperties },
} as const;
