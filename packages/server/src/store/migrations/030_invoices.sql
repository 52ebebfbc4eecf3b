-- Tax invoices (docs/operator/charging-merchants.md, "Tax invoices"): one GST invoice per merchant and IST month for
-- the fees Payrail charged it, numbered in one gap-free series per financial year, never changed or deleted once
-- issued. The fees are the merchant-side fee entries of the ledger (migration 029); which of them an invoice covered
-- is recorded beside the ledger (invoice_entries), as ledger entries are never updated.

-- The recipient of a merchant's invoices: its registered (legal) name, GSTIN if it has one, and the GST state code
-- of its billing address (the place of supply; without one, the operator's own state).
ALTER TABLE merchants
  ADD COLUMN legal_name text CHECK (length(legal_name) BETWEEN 1 AND 200),
  ADD COLUMN gstin text CHECK (gstin ~ '^[0-9]{2}[0-9A-Z]{13}$'),
  ADD COLUMN billing_state text CHECK (billing_state ~ '^[0-9]{2}$');

-- One run per month: running it again answers the invoices it issued. A run covers the fee entries visible to it,
-- charged before the month's end and not covered before; what it did not see goes to the next run. `scan_from` is
-- the ledger id it started reading at, `next_scan_from` the id below which every fee entry is covered when it ended
-- (InvoiceRepository.run says why that is safe), where the next run starts: a run reads about a month of the ledger,
-- not all of it.
CREATE TABLE invoice_runs (
  month          text PRIMARY KEY CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  run_at         timestamptz NOT NULL,
  scan_from      bigint NOT NULL CHECK (scan_from >= 0),
  next_scan_from bigint NOT NULL CHECK (next_scan_from >= scan_from),
  invoices       integer NOT NULL CHECK (invoices >= 0),
  created_at     timestamptz NOT NULL DEFAULT now()
);

-- The last number issued in each financial year's series ("2026-27"). Numbers are taken under the run's lock, in
-- the run's transaction: a run that fails takes none, so the series has no gaps.
CREATE TABLE invoice_series (
  financial_year text PRIMARY KEY CHECK (financial_year ~ '^[0-9]{4}-[0-9]{2}$'),
  last_number    integer NOT NULL CHECK (last_number >= 1)
);

CREATE TABLE invoices (
  -- IV + ULID: time-ordered, so the id is the list's order.
  id                   text PRIMARY KEY CHECK (id ~ '^IV[0-9A-HJKMNP-TV-Z]{26}$'),
  number               text NOT NULL UNIQUE CHECK (length(number) BETWEEN 1 AND 40),
  financial_year       text NOT NULL,
  sequence             integer NOT NULL CHECK (sequence >= 1),
  month                text NOT NULL REFERENCES invoice_runs (month),
  merchant_id          text NOT NULL REFERENCES merchants (id),
  -- The parties as they were at issue (settings and merchant fields may change later; the invoice does not).
  supplier_legal_name  text NOT NULL,
  supplier_gstin       text NOT NULL,
  supplier_address     text NOT NULL,
  supplier_state       text NOT NULL CHECK (supplier_state ~ '^[0-9]{2}$'),
  recipient_legal_name text NOT NULL,
  recipient_gstin      text,
  recipient_state      text NOT NULL CHECK (recipient_state ~ '^[0-9]{2}$'),
  sac                  text NOT NULL,
  -- PAYRAIL_GST_RATE at issue, in hundredths of a percent (the rate the invoice names; the tax is what was charged).
  gst_rate_bp          integer NOT NULL,
  -- Paise. Negative when the month's credits exceed its fees.
  taxable              bigint NOT NULL,
  cgst                 bigint NOT NULL,
  sgst                 bigint NOT NULL,
  igst                 bigint NOT NULL,
  total                bigint NOT NULL,
  issued_at            timestamptz NOT NULL,
  UNIQUE (financial_year, sequence),
  UNIQUE (month, merchant_id),
  CHECK (total = taxable + cgst + sgst + igst),
  CHECK ((supplier_state = recipient_state AND igst = 0) OR (supplier_state <> recipient_state AND cgst = 0 AND sgst = 0))
);
CREATE INDEX invoices_by_merchant ON invoices (merchant_id, id);

CREATE TABLE invoice_lines (
  invoice_id text NOT NULL REFERENCES invoices (id),
  position   smallint NOT NULL CHECK (position >= 1),
  kind       text NOT NULL CHECK (kind IN ('charge', 'credit')),
  product    text NOT NULL,
  count      integer NOT NULL CHECK (count >= 0),
  fees       bigint NOT NULL,
  tax        bigint NOT NULL,
  PRIMARY KEY (invoice_id, position),
  UNIQUE (invoice_id, kind, product),
  CHECK (CASE kind WHEN 'charge' THEN fees >= 0 AND tax >= 0 ELSE fees <= 0 AND tax <= 0 END)
);

-- The merchant-side fee entries each run covered, by ledger id: on the merchant's invoice of that month as a charge
-- or a credit, or left out (a fee and its refund both in one run). An entry is covered once. No foreign keys: a run
-- writes a row per entry (two per priced transaction) and checks what they would check in its own statement.
CREATE TABLE invoice_entries (
  entry_id bigint PRIMARY KEY,
  month    text NOT NULL
);

-- Issued is final: invoices, their lines, runs and covered entries are never changed or deleted.
CREATE FUNCTION invoice_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are never changed or deleted (issued invoices are final)', TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER invoice_guard BEFORE UPDATE OR DELETE ON invoices FOR EACH ROW EXECUTE FUNCTION invoice_guard();
CREATE TRIGGER invoice_guard BEFORE UPDATE OR DELETE ON invoice_lines FOR EACH ROW EXECUTE FUNCTION invoice_guard();
CREATE TRIGGER invoice_guard BEFORE UPDATE OR DELETE ON invoice_runs FOR EACH ROW EXECUTE FUNCTION invoice_guard();
CREATE TRIGGER invoice_guard BEFORE UPDATE OR DELETE ON invoice_entries FOR EACH ROW EXECUTE FUNCTION invoice_guard();
CREATE TRIGGER invoice_guard_truncate BEFORE TRUNCATE ON invoices FOR EACH STATEMENT EXECUTE FUNCTION invoice_guard();
CREATE TRIGGER invoice_guard_truncate BEFORE TRUNCATE ON invoice_lines FOR EACH STATEMENT
  EXECUTE FUNCTION invoice_guard();

-- A series only moves forward.
CREATE FUNCTION invoice_series_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW.financial_year <> OLD.financial_year OR NEW.last_number < OLD.last_number THEN
    RAISE EXCEPTION 'invoice series % only moves forward', OLD.financial_year USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER invoice_series_guard BEFORE UPDATE OR DELETE ON invoice_series
  FOR EACH ROW EXECUTE FUNCTION invoice_series_guard();
