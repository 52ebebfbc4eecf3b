-- Returns after success (docs/operator/admin-api.md, "Returns"): a bank may send back the money of a transfer that
-- succeeded (account closed, beneficiary refused). Such a payout moves SUCCESS → REFUNDED with its refund in the
-- ledger. The refund is the same `payout_refund` entry a failure gets: the unique index ledger_once_per_payout
-- (001) allows one per payout, so however many reports of the return arrive, the money comes back once; a payout is
-- either failed or returned, never both, so one refund per payout is the right number.
--
-- returned_at / return_reason: set by the return alone, so that a returned payout can be told from one refunded
-- after a failure (both end REFUNDED). The database stamps returned_at; the reason is what the bank or operator said.
ALTER TABLE payouts
  ADD COLUMN returned_at   timestamptz,
  ADD COLUMN return_reason text CHECK (length(return_reason) BETWEEN 1 AND 255),
  ADD CONSTRAINT payouts_return_whole CHECK ((returned_at IS NULL) = (return_reason IS NULL));

-- The transition table of 002 plus SUCCESS → REFUNDED (the return). REFUNDED still needs its refund entry first;
-- a return also needs its reason and keeps the UTR of the transfer that was returned. Nothing else may set or
-- change the return columns.
CREATE OR REPLACE FUNCTION payout_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'INITIATED' THEN
      RAISE EXCEPTION 'a payout starts INITIATED' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.returned_at IS NOT NULL OR NEW.return_reason IS NOT NULL THEN
      RAISE EXCEPTION 'a new payout has not been returned' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.merchant_id <> OLD.merchant_id OR NEW.wallet_id <> OLD.wallet_id OR NEW.sender_id <> OLD.sender_id
     OR NEW.amount <> OLD.amount OR NEW.scheme <> OLD.scheme THEN
    RAISE EXCEPTION 'payout % is immutable but for its status', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND (OLD.status, NEW.status) NOT IN (
       ('INITIATED', 'PROCESSING'), ('PROCESSING', 'SUCCESS'), ('PROCESSING', 'FAILED'), ('PROCESSING', 'PENDING'),
       ('PENDING', 'SUCCESS'), ('PENDING', 'FAILED'), ('FAILED', 'REFUNDED'), ('SUCCESS', 'REFUNDED')) THEN
    RAISE EXCEPTION 'illegal payout transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status = 'REFUNDED' AND OLD.status <> 'REFUNDED' AND NOT EXISTS (
       SELECT 1 FROM ledger_entries WHERE payout_id = NEW.id AND kind = 'payout_refund') THEN
    RAISE EXCEPTION 'payout % is REFUNDED only after its refund entry', NEW.id USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status = 'SUCCESS' AND NEW.status = 'REFUNDED' THEN
    IF NEW.return_reason IS NULL THEN
      RAISE EXCEPTION 'the return of payout % needs its reason', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.utr IS DISTINCT FROM OLD.utr THEN
      RAISE EXCEPTION 'returned payout % keeps its UTR', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    NEW.returned_at := now();
  ELSIF NEW.returned_at IS DISTINCT FROM OLD.returned_at OR NEW.return_reason IS DISTINCT FROM OLD.return_reason THEN
    RAISE EXCEPTION 'payout % records a return only with SUCCESS -> REFUNDED', NEW.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
