-- Bulk payouts and beneficiary verification (docs/merchant/bulk-and-verification.md).

-- A batch as it was accepted: its items' verdicts, and a counter of accepted items not yet final, so that the
-- transition that makes the last one final (and only that one) sends payout.batch.completed.
CREATE TABLE payout_batches (
  merchant_id     text NOT NULL REFERENCES merchants (id),
  batch_id        text NOT NULL,
  atomic          boolean NOT NULL,
  callback_url    text,
  scheme          text NOT NULL CHECK (scheme IN ('v1', 'v2')),
  item_count      integer NOT NULL CHECK (item_count BETWEEN 1 AND 1000),
  accepted        integer NOT NULL DEFAULT 0,
  amount_accepted bigint NOT NULL DEFAULT 0,
  open_items      integer NOT NULL DEFAULT 0 CHECK (open_items >= 0),
  created_at      timestamptz NOT NULL,
  completed_at    timestamptz,
  PRIMARY KEY (merchant_id, batch_id)
);
CREATE INDEX payout_batches_by_time ON payout_batches (created_at DESC, merchant_id, batch_id);

CREATE TABLE payout_batch_items (
  merchant_id  text NOT NULL,
  batch_id     text NOT NULL,
  item_index   integer NOT NULL,
  sender_id    text NOT NULL,
  resp_code    integer NOT NULL,
  resp_message text NOT NULL,
  payout_id    text REFERENCES payouts (id),
  PRIMARY KEY (merchant_id, batch_id, item_index),
  FOREIGN KEY (merchant_id, batch_id) REFERENCES payout_batches (merchant_id, batch_id)
);

ALTER TABLE payouts ADD COLUMN batch_id text;
CREATE INDEX payouts_by_batch ON payouts (merchant_id, batch_id) WHERE batch_id IS NOT NULL;

-- The money part of a batch in one statement. Candidates (items that passed every check that needs no database)
-- are applied in order, each as payout_open would: 4009 when the merchant already has the sender_id (history,
-- or an earlier accepted item of this batch), then the item's bank refusal if it has one, then 4002, 4010, 4011
-- against the balances and allowances as the earlier accepted items left them.
-- Locks, in payout_open's order so that batches and single initiations never deadlock: first the sender_ids (each
-- candidate's payout row is inserted up front, in sender_id order, before any wallet lock, as payout_open inserts
-- its row before it locks the wallet), then every wallet of the batch once in id order, then the day's and the
-- month's allowance rows. Rows of candidates that end up refused are deleted before the statement ends. The
-- debits, first steps and allowances of the accepted items are written set-based; the wallet's
-- CHECK (balance >= 0) and the ledger's unique index stay the last word on overdraft and double debit.
-- Returns one row per candidate: its position in the input arrays and its code (2000 accepted).
CREATE FUNCTION payout_open_batch(
  p_merchant text, p_batch text, p_scheme text, p_message text, p_rail text, p_day text, p_month text,
  p_at timestamptz, p_daily_limit int8, p_monthly_limit int8, p_job_delay_ms float8,
  p_ids text[], p_wallets text[], p_senders text[], p_amounts int8[], p_modes text[], p_names text[],
  p_accounts text[], p_ifscs text[], p_banks text[], p_remarks text[], p_callbacks text[], p_bank_codes int4[]
) RETURNS TABLE (pos int4, code int4) LANGUAGE plpgsql AS $$
DECLARE
  n int4 := coalesce(array_length(p_ids, 1), 0);
  v_inserted_ids text[];
  v_first int4[] := '{}';
  -- Per first occurrence of a sender_id: our row exists, which candidate's values it holds, whether accepted.
  v_ours boolean[] := '{}';
  v_holder int4[] := '{}';
  v_taken boolean[] := '{}';
  v_wallet_ids text[];
  v_balances int8[];
  v_day int8;
  v_month int8;
  v_added int8 := 0;
  v_accepted int4[] := '{}';
  v_slot int4;
  v_code int4;
  f int4;
  i int4;
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  -- Set-based, not array_position per item: a batch of 1,000 stays linear.
  SELECT array_agg(s.first ORDER BY s.k), array_agg(s.k ORDER BY s.k), array_agg(false ORDER BY s.k)
    INTO v_first, v_holder, v_taken
    FROM (SELECT k, min(k) OVER (PARTITION BY p_senders[k]) AS first FROM generate_subscripts(p_ids, 1) AS k) s;

  WITH inserted AS (
    INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
        beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
        utr, rail, ist_day, ist_month, created_at, updated_at, batch_id)
      SELECT p_ids[k], p_merchant, p_wallets[k], p_senders[k], p_amounts[k], p_modes[k], p_names[k], p_accounts[k],
          p_ifscs[k], p_banks[k], p_remarks[k], p_callbacks[k], p_scheme, 'INITIATED', p_message, '', p_rail, p_day,
          p_month, p_at, p_at, p_batch
        FROM generate_subscripts(p_ids, 1) AS k
       WHERE v_first[k] = k
       ORDER BY p_senders[k]
    ON CONFLICT (merchant_id, sender_id) DO NOTHING
    RETURNING id
  )
  SELECT coalesce(array_agg(id), '{}') INTO v_inserted_ids FROM inserted;
  SELECT array_agg(ins.id IS NOT NULL ORDER BY k)
    INTO v_ours
    FROM generate_subscripts(p_ids, 1) AS k LEFT JOIN unnest(v_inserted_ids) AS ins (id) ON ins.id = p_ids[k];

  SELECT array_agg(w.id ORDER BY w.id), array_agg(w.balance ORDER BY w.id)
    INTO v_wallet_ids, v_balances
    FROM (SELECT id, balance FROM wallets WHERE id = ANY (p_wallets) ORDER BY id FOR NO KEY UPDATE) w;
  INSERT INTO merchant_usage (merchant_id, period, amount)
    VALUES (p_merchant, 'D' || p_day, 0), (p_merchant, 'M' || p_month, 0)
    ON CONFLICT (merchant_id, period) DO NOTHING;
  SELECT amount INTO v_day FROM merchant_usage WHERE merchant_id = p_merchant AND period = 'D' || p_day FOR UPDATE;
  SELECT amount INTO v_month FROM merchant_usage WHERE merchant_id = p_merchant AND period = 'M' || p_month
    FOR UPDATE;

  FOR i IN 1 .. n LOOP
    f := v_first[i];
    v_slot := array_position(v_wallet_ids, p_wallets[i]);
    IF NOT v_ours[f] OR v_taken[f] THEN
      v_code := 4009;
    ELSIF p_bank_codes[i] IS NOT NULL THEN
      v_code := p_bank_codes[i];
    ELSIF v_slot IS NULL OR v_balances[v_slot] < p_amounts[i] THEN
      v_code := 4002;
    ELSIF p_daily_limit IS NOT NULL AND v_day + p_amounts[i] > p_daily_limit THEN
      v_code := 4010;
    ELSIF p_monthly_limit IS NOT NULL AND v_month + p_amounts[i] > p_monthly_limit THEN
      v_code := 4011;
    ELSE
      v_code := 2000;
      IF v_holder[f] <> i THEN
        -- An earlier item with this sender_id was refused: this one takes its place (the sender_id stays ours).
        DELETE FROM payouts WHERE id = p_ids[v_holder[f]];
        INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
            beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
            utr, rail, ist_day, ist_month, created_at, updated_at, batch_id)
          VALUES (p_ids[i], p_merchant, p_wallets[i], p_senders[i], p_amounts[i], p_modes[i], p_names[i],
            p_accounts[i], p_ifscs[i], p_banks[i], p_remarks[i], p_callbacks[i], p_scheme, 'INITIATED', p_message,
            '', p_rail, p_day, p_month, p_at, p_at, p_batch);
        v_holder[f] := i;
      END IF;
      v_taken[f] := true;
      v_balances[v_slot] := v_balances[v_slot] - p_amounts[i];
      v_day := v_day + p_amounts[i];
      v_month := v_month + p_amounts[i];
      v_added := v_added + p_amounts[i];
      v_accepted := v_accepted || i;
    END IF;
    pos := i;
    code := v_code;
    RETURN NEXT;
  END LOOP;

  -- The rows of sender_ids that no item of the batch took.
  DELETE FROM payouts
   WHERE id = ANY (ARRAY(SELECT p_ids[v_holder[k]] FROM generate_series(1, n) AS k WHERE v_ours[k] AND NOT v_taken[k]));
  IF array_length(v_accepted, 1) IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
    SELECT p_wallets[a], 'payout_debit', -p_amounts[a], 0, p_ids[a] FROM unnest(v_accepted) AS a;
  IF p_job_delay_ms IS NOT NULL THEN
    INSERT INTO jobs (kind, subject_id, run_at)
      SELECT 'payout.advance', p_ids[a], now() + make_interval(secs => p_job_delay_ms / 1000)
        FROM unnest(v_accepted) AS a;
  END IF;
  UPDATE merchant_usage SET amount = amount + v_added
   WHERE merchant_id = p_merchant AND period IN ('D' || p_day, 'M' || p_month);
END $$;

-- Beneficiary verification: the merchant's setting, and every verification made (reused for 30 days at initiation).
ALTER TABLE merchants
  ADD COLUMN beneficiary_verification text NOT NULL DEFAULT 'off' CHECK (beneficiary_verification IN ('off', 'required')),
  ADD COLUMN min_name_match_score integer NOT NULL DEFAULT 80 CHECK (min_name_match_score BETWEEN 0 AND 100);

CREATE TABLE beneficiary_verifications (
  id                text PRIMARY KEY,
  merchant_id       text NOT NULL REFERENCES merchants (id),
  account_number    text NOT NULL,
  ifsc              text NOT NULL,
  name_given        text NOT NULL,
  account_status    text NOT NULL CHECK (account_status IN ('VALID', 'INVALID')),
  name_at_bank      text NOT NULL,
  name_match_score  integer NOT NULL CHECK (name_match_score BETWEEN 0 AND 100),
  name_match_result text NOT NULL,
  bank_name         text NOT NULL,
  utr               text NOT NULL,
  created_at        timestamptz NOT NULL
);
CREATE INDEX beneficiary_verifications_by_account
  ON beneficiary_verifications (merchant_id, account_number, ifsc, created_at DESC);
