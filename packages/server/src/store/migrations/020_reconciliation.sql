-- Reconciliation of bank statements (docs/operator/reconciliation.md): the statements imported, one reconciliation run
-- per statement, and one item per transaction of the statement (or per payout missing from it).

-- A statement as imported: only statements whose arithmetic adds up are ever recorded. The same statement again
-- (same account, statement id and SHA-256 of the file) is not recorded twice.
CREATE TABLE bank_statements (
  id              text PRIMARY KEY,
  format          text NOT NULL CHECK (format IN ('camt.053', 'mt940')),
  version         text NOT NULL,
  account         text NOT NULL CHECK (length(account) BETWEEN 1 AND 100),
  statement_ref   text NOT NULL CHECK (length(statement_ref) BETWEEN 1 AND 200),
  sha256          text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  currency        text,
  period_from     date,
  period_to       date,
  -- Minor units (paise), signed; the balance types are ISO 20022's (MT940's fields mapped to them).
  opening_type    text NOT NULL,
  opening_balance bigint NOT NULL,
  opening_date    date,
  closing_type    text NOT NULL,
  closing_balance bigint NOT NULL,
  closing_date    date,
  credits         bigint NOT NULL CHECK (credits >= 0),
  debits          bigint NOT NULL CHECK (debits >= 0),
  -- Booked entries value-dated after the closing date, which the closing balance leaves out (signed sum).
  forward_value   bigint NOT NULL DEFAULT 0,
  entry_count     integer NOT NULL CHECK (entry_count >= 0),
  -- Entries not booked (PDNG, INFO): not counted, not matched.
  ignored_entries integer NOT NULL DEFAULT 0 CHECK (ignored_entries >= 0),
  imported_by     text NOT NULL,
  imported_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (opening_balance + credits - debits - forward_value = closing_balance),
  UNIQUE (account, statement_ref, sha256)
);

-- The counts and amounts per result are written with the items (which never change but for being closed), so
-- that listing runs reads no items.
CREATE TABLE reconciliation_runs (
  id                     text PRIMARY KEY,
  statement_id           text NOT NULL UNIQUE REFERENCES bank_statements (id),
  transactions           integer NOT NULL,
  matched                integer NOT NULL,
  matched_amount         bigint NOT NULL,
  amount_mismatch        integer NOT NULL,
  amount_mismatch_amount bigint NOT NULL,
  unmatched              integer NOT NULL,
  unmatched_amount       bigint NOT NULL,
  missing                integer NOT NULL,
  missing_amount         bigint NOT NULL,
  forward_value_items    integer NOT NULL,
  created_by             text NOT NULL,
  created_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE reconciliation_items (
  id              bigserial PRIMARY KEY,
  run_id          text NOT NULL REFERENCES reconciliation_runs (id),
  result          text NOT NULL CHECK (result IN ('matched', 'amount_mismatch', 'unmatched', 'missing')),
  -- Position of the entry in the statement and of the transaction (TxDtls) in it; null for a missing payout,
  -- tx_index null for an entry without details.
  entry_index     integer,
  tx_index        integer,
  direction       text CHECK (direction IN ('credit', 'debit')),
  -- The bank's amount (minor units, unsigned; null when a batched entry does not give it); for a missing payout,
  -- the payout's amount.
  amount          bigint CHECK (amount >= 0),
  currency        text,
  booking_date    date,
  value_date      date,
  forward_value   boolean NOT NULL DEFAULT false,
  end_to_end_id   text,
  utr             text,
  bank_reference  text,
  return_reason   text,
  remittance      text,
  matched_kind    text CHECK (matched_kind IN ('payout', 'return', 'collection', 'wallet_credit')),
  payout_id       text,
  collection_id   text,
  ledger_entry_id bigint,
  wallet_id       text,
  payrail_amount  bigint,
  note            text,
  closed_by       text,
  closed_reason   text CHECK (length(closed_reason) BETWEEN 1 AND 1000),
  closed_at       timestamptz,
  CHECK ((closed_at IS NULL) = (closed_by IS NULL) AND (closed_at IS NULL) = (closed_reason IS NULL)),
  -- Only an exception is closed.
  CHECK (closed_at IS NULL OR result <> 'matched'),
  CHECK ((result = 'missing') = (entry_index IS NULL))
);
CREATE INDEX reconciliation_items_by_run ON reconciliation_items (run_id, id);
CREATE INDEX reconciliation_items_open ON reconciliation_items (run_id)
  WHERE result <> 'matched' AND closed_at IS NULL;
CREATE INDEX reconciliation_items_by_payout ON reconciliation_items (payout_id) WHERE payout_id IS NOT NULL;

-- An item is what the statement said and what matching found: only its closing may change, once.
CREATE FUNCTION reconciliation_item_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'reconciliation items are kept' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD.closed_at IS NOT NULL THEN
    RAISE EXCEPTION 'reconciliation item % is already closed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF (to_jsonb(NEW) - ARRAY['closed_by', 'closed_reason', 'closed_at'])
     IS DISTINCT FROM (to_jsonb(OLD) - ARRAY['closed_by', 'closed_reason', 'closed_at']) THEN
    RAISE EXCEPTION 'reconciliation item % changes only by being closed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER reconciliation_item_guard BEFORE UPDATE OR DELETE ON reconciliation_items
  FOR EACH ROW EXECUTE FUNCTION reconciliation_item_guard();

-- Matching looks payouts and collections up by UTR and wallet credits by reference (each statement in one go);
-- "missing" lists the payouts that became SUCCESS within a period.
CREATE INDEX payouts_by_utr ON payouts (utr) WHERE utr <> '';
CREATE INDEX collections_by_utr ON collections (utr) WHERE utr <> '';
CREATE INDEX ledger_credits_by_reference ON ledger_entries (reference) WHERE kind = 'credit' AND reference IS NOT NULL;
CREATE INDEX payouts_success_by_time ON payouts (updated_at) WHERE status = 'SUCCESS';
