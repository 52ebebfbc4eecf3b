-- The whole initiation write in one statement (one round trip, one short hold of the wallet's row lock):
-- the payout, its first background step, the ledger debit and both allowances. Any refusal raises, and the
-- statement's implicit transaction rolls everything back. A duplicate sender_id returns no row.
-- Refusals: PR002 balance does not cover the amount, PR010 daily allowance, PR011 monthly allowance.
CREATE FUNCTION payout_open(
  p_id text, p_merchant text, p_wallet text, p_sender text, p_amount int8, p_mode text,
  p_name text, p_account text, p_ifsc text, p_bank text, p_remarks text, p_callback text, p_scheme text,
  p_message text, p_rail text, p_day text, p_month text, p_at timestamptz,
  p_daily_limit int8, p_monthly_limit int8, p_job_delay_ms float8
) RETURNS SETOF payouts LANGUAGE plpgsql AS $$
DECLARE
  v_payout payouts;
  v_balance int8;
BEGIN
  INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
      beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
      utr, rail, ist_day, ist_month, created_at, updated_at)
    VALUES (p_id, p_merchant, p_wallet, p_sender, p_amount, p_mode, p_name, p_account, p_ifsc, p_bank, p_remarks,
      p_callback, p_scheme, 'INITIATED', p_message, '', p_rail, p_day, p_month, p_at, p_at)
    ON CONFLICT (merchant_id, sender_id) DO NOTHING
    RETURNING * INTO v_payout;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  -- Before the wallet lock, so that the lock is held for as little as possible.
  IF p_job_delay_ms IS NOT NULL THEN
    INSERT INTO jobs (kind, subject_id, run_at)
      VALUES ('payout.advance', p_id, now() + make_interval(secs => p_job_delay_ms / 1000));
  END IF;

  -- NO KEY UPDATE, not UPDATE: the payout row's foreign key already holds KEY SHARE on the wallet, and two
  -- payouts upgrading that to FOR UPDATE would deadlock. NO KEY UPDATE still serialises them.
  SELECT balance INTO v_balance FROM wallets WHERE id = p_wallet FOR NO KEY UPDATE;
  IF v_balance < p_amount THEN
    RAISE EXCEPTION 'insufficient balance' USING ERRCODE = 'PR002';
  END IF;
  -- The ledger trigger applies the debit to the wallet; its CHECK (balance >= 0) stays the last word.
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
    VALUES (p_wallet, 'payout_debit', -p_amount, 0, p_id);

  -- Allowances: the day's row, then the month's, always in that order (no deadlock between payouts).
  INSERT INTO merchant_usage (merchant_id, period, amount)
    SELECT p_merchant, 'D' || p_day, p_amount WHERE p_daily_limit IS NULL OR p_amount <= p_daily_limit
    ON CONFLICT (merchant_id, period) DO UPDATE SET amount = merchant_usage.amount + EXCLUDED.amount
      WHERE p_daily_limit IS NULL OR merchant_usage.amount + EXCLUDED.amount <= p_daily_limit;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'daily allowance exceeded' USING ERRCODE = 'PR010';
  END IF;
  INSERT INTO merchant_usage (merchant_id, period, amount)
    SELECT p_merchant, 'M' || p_month, p_amount WHERE p_monthly_limit IS NULL OR p_amount <= p_monthly_limit
    ON CONFLICT (merchant_id, period) DO UPDATE SET amount = merchant_usage.amount + EXCLUDED.amount
      WHERE p_monthly_limit IS NULL OR merchant_usage.amount + EXCLUDED.amount <= p_monthly_limit;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'monthly allowance exceeded' USING ERRCODE = 'PR011';
  END IF;

  RETURN NEXT v_payout;
END $$;
