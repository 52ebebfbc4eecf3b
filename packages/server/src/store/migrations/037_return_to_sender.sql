-- Returning a deposit to its sender (docs/operator/exceptions.md, "return_to_sender"). A deposit that named no wallet
-- (an unknown virtual account, a remitter the merchant does not accept) is money in the operator's bank account and
-- in no wallet. To pay it back, it first enters the books, in the platform's suspense wallet, as a deposit of that
-- UTR (so it can never also be credited to a merchant), and then leaves by an ordinary payout from that wallet to the
-- remitter: every rail, return, exception and reconciliation rule applies to it. A payout of the platform belongs to
-- no merchant: it charges no allowance, pays no fee and sends no webhook.

-- The suspense wallet: moved per entry like a merchant wallet (ledger_apply; it is cold, so its row lock serialises
-- nothing), never below zero.
ALTER TABLE wallets DROP CONSTRAINT wallets_platform_kind_check;
ALTER TABLE wallets ADD CONSTRAINT wallets_platform_kind_check
  CHECK (platform_kind IN ('fees', 'gst', 'recovery', 'suspense'));
-- No virtual account: nothing can be deposited to it (and its row takes no number from the merchants' sequence).
INSERT INTO wallets (id, platform_kind, va_seq) VALUES ('PW_SUSPENSE', 'suspense', NULL);

-- A deposit brought into the suspense wallet belongs to no merchant: it was credited nowhere, and the exception
-- that returns it names it.
ALTER TABLE deposits
  ALTER COLUMN merchant_id DROP NOT NULL,
  ADD CONSTRAINT deposits_owner CHECK ((merchant_id IS NULL) = (wallet_id = 'PW_SUSPENSE')),
  ADD CONSTRAINT deposits_suspense_named CHECK (wallet_id <> 'PW_SUSPENSE' OR exception_id IS NOT NULL);

-- The platform's payouts: from the suspense wallet, no merchant's, each naming the exception it resolves. sender_id
-- is the exception's id and the attempt (EX…-1, EX…-2: a return that failed may be tried again).
ALTER TABLE payouts
  ALTER COLUMN merchant_id DROP NOT NULL,
  ADD COLUMN exception_id text REFERENCES exceptions (id),
  ADD CONSTRAINT payouts_owner CHECK ((merchant_id IS NULL) = (wallet_id = 'PW_SUSPENSE')),
  ADD CONSTRAINT payouts_platform_named CHECK ((merchant_id IS NULL) = (exception_id IS NOT NULL));
CREATE INDEX payouts_by_exception ON payouts (exception_id, id) WHERE exception_id IS NOT NULL;
CREATE UNIQUE INDEX payouts_platform_sender ON payouts (sender_id) WHERE merchant_id IS NULL;
-- One return at a time per exception: another may be opened only once the last one is REFUNDED (failed or returned).
CREATE UNIQUE INDEX payouts_one_live_return ON payouts (exception_id)
  WHERE exception_id IS NOT NULL AND status <> 'REFUNDED';

-- A return that fails (or comes back) puts the money back in the suspense wallet, and the exception is open again:
-- its first resolution is kept in the audit log and in reopened_* here. The guard of 026 lets an exception change
-- only by being resolved; now also by being reopened, only by this trigger, only from a return_to_sender.
ALTER TABLE exceptions
  ADD COLUMN reopened_at   timestamptz,
  ADD COLUMN reopen_reason text CHECK (length(reopen_reason) BETWEEN 1 AND 2000),
  ADD CONSTRAINT exceptions_reopen_named CHECK ((reopened_at IS NULL) = (reopen_reason IS NULL));

CREATE OR REPLACE FUNCTION exception_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_resolution text[] := ARRAY['state', 'resolved_at', 'resolved_by', 'resolution_action', 'resolution_reason',
                               'reopened_at', 'reopen_reason'];
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'exceptions are kept' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD.state = 'resolved' THEN
    IF NOT (NEW.state = 'open' AND OLD.resolution_action = 'return_to_sender'
            AND current_setting('payrail.exception_reopen', true) = OLD.id) THEN
      RAISE EXCEPTION 'exception % is already resolved', OLD.id USING ERRCODE = 'check_violation';
    END IF;
  ELSIF NEW.reopened_at IS DISTINCT FROM OLD.reopened_at OR NEW.reopen_reason IS DISTINCT FROM OLD.reopen_reason THEN
    RAISE EXCEPTION 'exception % is reopened only when its return fails', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF (to_jsonb(NEW) - v_resolution) IS DISTINCT FROM (to_jsonb(OLD) - v_resolution) THEN
    RAISE EXCEPTION 'exception % changes only by being resolved', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;

CREATE FUNCTION exception_reopen_on_return() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('payrail.exception_reopen', NEW.exception_id, true);
  UPDATE exceptions
     SET state = 'open', resolved_at = NULL, resolved_by = NULL, resolution_action = NULL, resolution_reason = NULL,
         reopened_at = NEW.updated_at,
         reopen_reason = left('the return ' || NEW.id || ' was ' || CASE WHEN NEW.returned_at IS NULL
           THEN 'refused: ' || coalesce(NEW.failure_reason, NEW.status_message)
           ELSE 'returned by the bank: ' || coalesce(NEW.return_reason, NEW.status_message) END
           || '; its money is back in the suspense wallet', 2000)
   WHERE id = NEW.exception_id AND state = 'resolved' AND resolution_action = 'return_to_sender';
  PERFORM set_config('payrail.exception_reopen', '', true);
  RETURN NULL;
END $$;
CREATE TRIGGER exception_reopen_on_return AFTER UPDATE OF status ON payouts FOR EACH ROW
  WHEN (NEW.exception_id IS NOT NULL AND NEW.status = 'REFUNDED' AND OLD.status IS DISTINCT FROM 'REFUNDED')
  EXECUTE FUNCTION exception_reopen_on_return();

-- Opens the return of an exception's deposit, in the resolution's transaction. The deposit enters the suspense wallet
-- once (its UTR; a later attempt after a failed return finds it there); a UTR credited to a merchant's wallet refuses
-- ('credited'), as does a return still under way ('in_flight'). Then the payout: INITIATED, no fee, no allowance,
-- its debit on the suspense wallet (whose CHECK balance >= 0 is the last word). Answers null, or the refusal.
-- Lock order: the exception (the caller's), the deposit row by UTR, the suspense wallet (the ledger trigger).
CREATE FUNCTION return_to_sender_open(
  p_exception text, p_deposit text, p_payout text, p_amount int8, p_utr text, p_va text,
  p_name text, p_account text, p_ifsc text, p_bank text, p_credited_at timestamptz,
  p_mode text, p_rail text, p_message text, p_day text, p_month text, p_at timestamptz
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_wallet text;
  v_attempt int4;
BEGIN
  -- null when this UTR was never credited
  SELECT wallet_id INTO v_wallet FROM deposits WHERE utr = p_utr;
  IF v_wallet <> 'PW_SUSPENSE' THEN
    RETURN 'credited';
  END IF;
  IF EXISTS (SELECT 1 FROM payouts WHERE exception_id = p_exception AND status <> 'REFUNDED') THEN
    RETURN 'in_flight';
  END IF;
  IF v_wallet IS NULL THEN
    INSERT INTO deposits (id, utr, merchant_id, wallet_id, amount, virtual_account, remitter_name, remitter_account,
        remitter_ifsc, source, exception_id, credited_at, created_at)
      VALUES (p_deposit, p_utr, NULL, 'PW_SUSPENSE', p_amount, p_va, p_name, p_account, p_ifsc, 'exception',
        p_exception, p_credited_at, p_at)
      ON CONFLICT (utr) DO NOTHING;
    IF NOT FOUND THEN
      RETURN 'credited';
    END IF;
    INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, deposit_id)
      VALUES ('PW_SUSPENSE', 'deposit', p_amount, 0, p_deposit);
  END IF;
  SELECT count(*) + 1 INTO v_attempt FROM payouts WHERE exception_id = p_exception;
  INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
      beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
      utr, rail, ist_day, ist_month, created_at, updated_at, fee, tax, exception_id)
    VALUES (p_payout, NULL, 'PW_SUSPENSE', p_exception || '-' || v_attempt, p_amount, p_mode, p_name, p_account,
      p_ifsc, p_bank, 'Return of ' || p_utr, NULL, 'v2', 'INITIATED', p_message, '', p_rail, p_day, p_month, p_at,
      p_at, 0, 0, p_exception);
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, reference)
    VALUES ('PW_SUSPENSE', 'payout_debit', -p_amount, 0, p_payout, p_exception);
  RETURN NULL;
END $$;
