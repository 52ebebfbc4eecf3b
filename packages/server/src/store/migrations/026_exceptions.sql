-- The exceptions queue (docs/operator/exceptions.md): everything that disagrees with Payrail's books. A report from
-- outside that fails a check (another connector's payout, another file, another amount, a status report about a paid
-- payout) changes no payout and no wallet and is recorded here instead; so is every reconciliation result other than
-- matched. Each is recorded once (by source and content) and never deleted; an operator resolves it once.
CREATE TABLE exceptions (
  -- EX + ULID: time-ordered, so the id is the list's order.
  id                text PRIMARY KEY CHECK (id ~ '^EX[0-9A-HJKMNP-TV-Z]{26}$'),
  kind              text NOT NULL CHECK (kind IN ('report_refused', 'status_contradiction', 'return_mismatch',
                      'paid_but_refunded', 'return_not_applied', 'amount_mismatch', 'unmatched', 'missing',
                      'unknown_virtual_account', 'remitter_not_allowed')),
  state             text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved')),
  -- Where the report came from (upstream_webhook, upstream_poll, psp_notify, bankfile, reconciliation) and which
  -- one (a file's name, a run's id).
  source            text NOT NULL CHECK (length(source) BETWEEN 1 AND 40),
  source_ref        text CHECK (length(source_ref) <= 300),
  -- SHA-256 of the source and what it reported: the same report again records nothing new.
  fingerprint       text NOT NULL UNIQUE CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  merchant_id       text,
  payout_id         text,
  wallet_id         text,
  -- The amount at stake, in paise (unsigned); null when the report gives none.
  amount            bigint CHECK (amount >= 0),
  reported          jsonb NOT NULL,
  held              jsonb NOT NULL,
  reason            text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
  -- A reconciliation result: its item (closing one closes the other).
  recon_item_id     bigint REFERENCES reconciliation_items (id),
  created_at        timestamptz NOT NULL DEFAULT now(),
  resolved_at       timestamptz,
  resolved_by       text,
  resolution_action text CHECK (resolution_action IN ('apply_as_reported', 'refund_in_full', 'assign_to_wallet',
                      'return_to_sender', 'dismiss')),
  resolution_reason text CHECK (length(resolution_reason) BETWEEN 1 AND 1000),
  CHECK ((state = 'resolved') = (resolved_at IS NOT NULL)),
  CHECK ((resolved_at IS NULL) = (resolved_by IS NULL) AND (resolved_at IS NULL) = (resolution_action IS NULL)
    AND (resolved_at IS NULL) = (resolution_reason IS NULL))
);
CREATE INDEX exceptions_open ON exceptions (id) WHERE state = 'open';
CREATE INDEX exceptions_by_payout ON exceptions (payout_id) WHERE payout_id IS NOT NULL;
CREATE INDEX exceptions_by_merchant ON exceptions (merchant_id, id) WHERE merchant_id IS NOT NULL;
CREATE UNIQUE INDEX exceptions_by_recon_item ON exceptions (recon_item_id) WHERE recon_item_id IS NOT NULL;

-- An exception is what was reported and why it was refused: only its resolution may change, once.
CREATE FUNCTION exception_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'exceptions are kept' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD.state = 'resolved' THEN
    RAISE EXCEPTION 'exception % is already resolved', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF (to_jsonb(NEW) - ARRAY['state', 'resolved_at', 'resolved_by', 'resolution_action', 'resolution_reason'])
     IS DISTINCT FROM
     (to_jsonb(OLD) - ARRAY['state', 'resolved_at', 'resolved_by', 'resolution_action', 'resolution_reason']) THEN
    RAISE EXCEPTION 'exception % changes only by being resolved', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER exception_guard BEFORE UPDATE OR DELETE ON exceptions
  FOR EACH ROW EXECUTE FUNCTION exception_guard();

-- Reconciliation sees contradictions: a debit for a payout Payrail failed and refunded without ever recording
-- SUCCESS (paid_but_refunded), a return credit for a payout still SUCCESS (return_not_applied).
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_result_check;
ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_result_check
  CHECK (result IN ('matched', 'amount_mismatch', 'unmatched', 'missing', 'paid_but_refunded', 'return_not_applied'));
ALTER TABLE reconciliation_runs
  ADD COLUMN paid_but_refunded integer NOT NULL DEFAULT 0,
  ADD COLUMN paid_but_refunded_amount bigint NOT NULL DEFAULT 0,
  ADD COLUMN return_not_applied integer NOT NULL DEFAULT 0,
  ADD COLUMN return_not_applied_amount bigint NOT NULL DEFAULT 0;
