-- The single initiation in ONE round trip (issue 13): the checks that needed lookups before payout_open are made
-- in the statement that does the work, from the rows as they are now, whatever an instance's caches say:
--   PR001  the merchant is not active, or its credentials version is not the token's (rotated since): 4001;
--   PR008  the wallet is not this merchant's (or does not exist): 4008.
-- The daily and monthly allowances are read from the merchant's row here, so that a limit change binds the next
-- payout on every instance. Then payout_open (migration 004) does the write, unchanged.
CREATE FUNCTION payout_open_checked(
  p_id text, p_merchant text, p_cv int, p_wallet text, p_sender text, p_amount int8, p_mode text,
  p_name text, p_account text, p_ifsc text, p_bank text, p_remarks text, p_callback text, p_scheme text,
  p_message text, p_rail text, p_day text, p_month text, p_at timestamptz, p_job_delay_ms float8
) RETURNS SETOF payouts LANGUAGE plpgsql AS $$
DECLARE
  v_status text;
  v_cv int;
  v_daily int8;
  v_monthly int8;
BEGIN
  SELECT status, credentials_version, daily_limit, monthly_limit INTO v_status, v_cv, v_daily, v_monthly
    FROM merchants WHERE id = p_merchant;
  IF NOT FOUND OR v_status <> 'active' OR v_cv <> p_cv THEN
    RAISE EXCEPTION 'merchant % is not active with these credentials', p_merchant USING ERRCODE = 'PR001';
  END IF;
  PERFORM 1 FROM wallets WHERE id = p_wallet AND merchant_id = p_merchant;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'wallet % is not the merchant''s', p_wallet USING ERRCODE = 'PR008';
  END IF;
  RETURN QUERY SELECT * FROM payout_open(p_id, p_merchant, p_wallet, p_sender, p_amount, p_mode, p_name, p_account,
    p_ifsc, p_bank, p_remarks, p_callback, p_scheme, p_message, p_rail, p_day, p_month, p_at, v_daily, v_monthly,
    p_job_delay_ms);
END $$;
