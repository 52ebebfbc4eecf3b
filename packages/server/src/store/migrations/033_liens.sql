-- Liens (docs/operator/liens.md): an operator holds part of a wallet's balance. A lien never moves money; it makes
-- what it holds unspendable (a payout, its fee and GST fit in balance minus active liens, or 4002), until it is
-- released (in full or in part), expires, or is enforced (the amount moves to the platform's recovery wallet as
-- `lien_enforced` entries). Liens are never deleted.

CREATE TABLE liens (
  id                   text PRIMARY KEY,
  wallet_id            text NOT NULL REFERENCES wallets (id),
  -- Paise: as placed, and how it has been taken down since. `remaining` is what the lien holds now.
  amount               bigint NOT NULL CHECK (amount > 0),
  remaining            bigint NOT NULL CHECK (remaining >= 0),
  released             bigint NOT NULL DEFAULT 0 CHECK (released >= 0),
  enforced             bigint NOT NULL DEFAULT 0 CHECK (enforced >= 0),
  reason               text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  -- pending: placed by a console operator above the approval threshold, waiting for a second operator; holds
  -- nothing yet. rejected: that second operator said no. An active lien whose expires_at has passed holds nothing
  -- and reads as expired (compared with the caller's clock, below); released / enforced when nothing remains.
  state                text NOT NULL CHECK (state IN ('pending', 'active', 'released', 'enforced', 'rejected')),
  expires_at           timestamptz,
  -- The actors as the audit log names them (an operator's e-mail address or `operator:admin-token`).
  placed_by            text NOT NULL,
  approved_by          text,
  -- An enforcement waiting for a second operator (above the threshold): how much, asked by whom, why.
  enforce_pending      bigint CHECK (enforce_pending > 0),
  enforce_requested_by text,
  enforce_reason       text,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  CHECK (amount = remaining + released + enforced),
  CHECK (state NOT IN ('released', 'enforced') OR remaining = 0),
  CHECK (state <> 'active' OR remaining > 0),
  CHECK (state NOT IN ('pending', 'rejected') OR remaining = amount),
  CHECK ((enforce_pending IS NULL) = (enforce_requested_by IS NULL)),
  CHECK (enforce_pending IS NULL OR (state = 'active' AND enforce_pending <= remaining))
);
CREATE INDEX liens_by_wallet ON liens (wallet_id, id);
CREATE INDEX liens_holding ON liens (wallet_id) WHERE state = 'active';

-- A lien is history: never deleted; its wallet, amount and maker never change; a final state stays final.
CREATE FUNCTION lien_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'liens are never deleted' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW.id <> OLD.id OR NEW.wallet_id <> OLD.wallet_id OR NEW.amount <> OLD.amount OR NEW.placed_by <> OLD.placed_by
     OR NEW.created_at <> OLD.created_at OR NEW.released < OLD.released OR NEW.enforced < OLD.enforced THEN
    RAISE EXCEPTION 'lien % is immutable but for its state and what remains', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.state IS DISTINCT FROM OLD.state AND (OLD.state, NEW.state) NOT IN (
       ('pending', 'active'), ('pending', 'rejected'), ('active', 'released'), ('active', 'enforced')) THEN
    RAISE EXCEPTION 'illegal lien transition % -> %', OLD.state, NEW.state USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER lien_guard BEFORE UPDATE OR DELETE ON liens FOR EACH ROW EXECUTE FUNCTION lien_guard();

-- What the wallet's liens hold at `p_at` (the caller's clock): active, not expired. The one place this is summed:
-- payout_open, payout_open_batch, the balance answers and the placing of a lien call it, each under the wallet's
-- row lock when it decides (a lien is placed under the same lock, FOR NO KEY UPDATE).
CREATE FUNCTION wallet_on_lien(p_wallet text, p_at timestamptz) RETURNS int8 LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(remaining), 0)::int8 FROM liens
   WHERE wallet_id = p_wallet AND state = 'active' AND (expires_at IS NULL OR expires_at > p_at)
$$;

-- Entry kinds: 029's, the deposits' (032) and the lien enforced (the merchant's wallet −amount, PW_RECOVERY +amount).
ALTER TABLE ledger_entries
  ADD COLUMN lien_id text REFERENCES liens (id),
  DROP CONSTRAINT ledger_entries_kind_check,
  ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('credit', 'payout_debit', 'payout_refund',
    'collection_credit', 'payout_fee', 'payout_fee_gst', 'payout_fee_refund', 'payout_fee_gst_refund',
    'collection_fee', 'collection_fee_gst', 'deposit', 'deposit_fee', 'deposit_fee_gst', 'lien_enforced')),
  DROP CONSTRAINT ledger_entries_sign,
  ADD CONSTRAINT ledger_entries_sign CHECK (CASE
    WHEN kind = 'payout_debit' THEN amount < 0
    WHEN kind IN ('credit', 'payout_refund', 'collection_credit', 'deposit') THEN amount > 0
    WHEN kind IN ('payout_fee', 'payout_fee_gst', 'collection_fee', 'collection_fee_gst', 'deposit_fee',
                  'deposit_fee_gst')
      THEN (wallet_id IN ('PW_FEES', 'PW_GST')) = (amount > 0)
    WHEN kind = 'lien_enforced' THEN (wallet_id = 'PW_RECOVERY') = (amount > 0)
    ELSE (wallet_id IN ('PW_FEES', 'PW_GST')) = (amount < 0) END),
  ADD CONSTRAINT ledger_entries_lien CHECK ((kind = 'lien_enforced') = (lien_id IS NOT NULL));
CREATE INDEX ledger_by_lien ON ledger_entries (lien_id) WHERE lien_id IS NOT NULL;

-- 029's payout_open, unchanged but for its balance check: amount + fee + GST against balance minus active liens.
CREATE OR REPLACE FUNCTION payout_open(
  p_id text, p_merchant text, p_wallet text, p_sender text, p_amount int8, p_mode text,
  p_name text, p_account text, p_ifsc text, p_bank text, p_remarks text, p_callback text, p_scheme text,
  p_message text, p_rail text, p_day text, p_month text, p_at timestamptz,
  p_daily_limit int8, p_monthly_limit int8, p_job_delay_ms float8, p_fee int8, p_tax int8
) RETURNS SETOF payouts LANGUAGE plpgsql AS $$
DECLARE
  v_payout payouts;
  v_balance int8;
BEGIN
  INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
      beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
      utr, rail, ist_day, ist_month, created_at, updated_at, fee, tax)
    VALUES (p_id, p_merchant, p_wallet, p_sender, p_amount, p_mode, p_name, p_account, p_ifsc, p_bank, p_remarks,
      p_callback, p_scheme, 'INITIATED', p_message, '', p_rail, p_day, p_month, p_at, p_at, p_fee, p_tax)
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
  -- 033: what the wallet's liens hold is not spendable. Read in its own statement, after the lock: a lien placed
  -- meanwhile committed under the same lock, and this statement's snapshot sees it.
  v_balance := v_balance - wallet_on_lien(p_wallet, p_at);
  IF v_balance < p_amount + p_fee + p_tax THEN
    RAISE EXCEPTION 'insufficient balance' USING ERRCODE = 'PR002';
  END IF;
  -- The ledger trigger applies the debit to the wallet; its CHECK (balance >= 0) stays the last word.
  IF p_fee = 0 AND p_tax = 0 THEN
    INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
      VALUES (p_wallet, 'payout_debit', -p_amount, 0, p_id);
  ELSE
    INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
      SELECT v.w, v.k, v.a, 0, p_id
        FROM (VALUES (1, p_wallet, 'payout_debit', -p_amount), (2, p_wallet, 'payout_fee', -p_fee),
                     (3, p_wallet, 'payout_fee_gst', -p_tax), (4, 'PW_FEES', 'payout_fee', p_fee),
                     (5, 'PW_GST', 'payout_fee_gst', p_tax)) AS v (o, w, k, a)
       WHERE v.a <> 0
       ORDER BY v.o;
  END IF;

  -- Allowances count the amount only: the day's row, then the month's, always in that order.
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

-- 029's payout_open_batch, unchanged but for each wallet's balance, taken less its active liens.
CREATE OR REPLACE FUNCTION payout_open_batch(
  p_merchant text, p_batch text, p_scheme text, p_message text, p_rail text, p_day text, p_month text,
  p_at timestamptz, p_daily_limit int8, p_monthly_limit int8, p_job_delay_ms float8,
  p_ids text[], p_wallets text[], p_senders text[], p_amounts int8[], p_modes text[], p_names text[],
  p_accounts text[], p_ifscs text[], p_banks text[], p_remarks text[], p_callbacks text[], p_bank_codes int4[],
  p_gst_bp int4, p_require_pricing boolean
) RETURNS TABLE (pos int4, code int4, item_fee int8, item_tax int8) LANGUAGE plpgsql AS $$
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
  v_rules jsonb;
  v_unpriced boolean;
  v_fees int8[];
  v_taxes int8[];
  v_slot int4;
  v_code int4;
  f int4;
  i int4;
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  SELECT rules INTO v_rules FROM pricing_plans WHERE merchant_id = p_merchant;
  v_unpriced := v_rules IS NULL AND p_require_pricing;
  SELECT array_agg(coalesce(pricing_fee(v_rules, p_modes[k], p_amounts[k]), 0) ORDER BY k)
    INTO v_fees FROM generate_subscripts(p_ids, 1) AS k;
  SELECT array_agg(pricing_gst(v_fees[k], p_gst_bp) ORDER BY k) INTO v_taxes FROM generate_subscripts(p_ids, 1) AS k;

  -- Set-based, not array_position per item: a batch of 1,000 stays linear.
  SELECT array_agg(s.first ORDER BY s.k), array_agg(s.k ORDER BY s.k), array_agg(false ORDER BY s.k)
    INTO v_first, v_holder, v_taken
    FROM (SELECT k, min(k) OVER (PARTITION BY p_senders[k]) AS first FROM generate_subscripts(p_ids, 1) AS k) s;

  WITH inserted AS (
    INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
        beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
        utr, rail, ist_day, ist_month, created_at, updated_at, batch_id, fee, tax)
      SELECT p_ids[k], p_merchant, p_wallets[k], p_senders[k], p_amounts[k], p_modes[k], p_names[k], p_accounts[k],
          p_ifscs[k], p_banks[k], p_remarks[k], p_callbacks[k], p_scheme, 'INITIATED', p_message, '', p_rail, p_day,
          p_month, p_at, p_at, p_batch, v_fees[k], v_taxes[k]
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
  -- 033: less what each wallet's liens hold, read after the locks (as in payout_open).
  SELECT array_agg(v_balances[k] - wallet_on_lien(v_wallet_ids[k], p_at) ORDER BY k)
    INTO v_balances FROM generate_subscripts(v_wallet_ids, 1) AS k;
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
    ELSIF v_unpriced THEN
      v_code := 4015;
    ELSIF v_slot IS NULL OR v_balances[v_slot] < p_amounts[i] + v_fees[i] + v_taxes[i] THEN
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
            utr, rail, ist_day, ist_month, created_at, updated_at, batch_id, fee, tax)
          VALUES (p_ids[i], p_merchant, p_wallets[i], p_senders[i], p_amounts[i], p_modes[i], p_names[i],
            p_accounts[i], p_ifscs[i], p_banks[i], p_remarks[i], p_callbacks[i], p_scheme, 'INITIATED', p_message,
            '', p_rail, p_day, p_month, p_at, p_at, p_batch, v_fees[i], v_taxes[i]);
        v_holder[f] := i;
      END IF;
      v_taken[f] := true;
      v_balances[v_slot] := v_balances[v_slot] - p_amounts[i] - v_fees[i] - v_taxes[i];
      v_day := v_day + p_amounts[i];
      v_month := v_month + p_amounts[i];
      v_added := v_added + p_amounts[i];
      v_accepted := v_accepted || i;
    END IF;
    pos := i;
    code := v_code;
    item_fee := CASE WHEN v_code = 2000 THEN v_fees[i] ELSE 0 END;
    item_tax := CASE WHEN v_code = 2000 THEN v_taxes[i] ELSE 0 END;
    RETURN NEXT;
  END LOOP;

  -- The rows of sender_ids that no item of the batch took.
  DELETE FROM payouts
   WHERE id = ANY (ARRAY(SELECT p_ids[v_holder[k]] FROM generate_series(1, n) AS k WHERE v_ours[k] AND NOT v_taken[k]));
  IF array_length(v_accepted, 1) IS NULL THEN
    RETURN;
  END IF;
  -- Each accepted item's debit, fee and GST (merchant side, item by item), then the platform's side.
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
    SELECT v.w, v.k, v.a, 0, p_ids[u.a]
      FROM unnest(v_accepted) WITH ORDINALITY AS u (a, ord)
     CROSS JOIN LATERAL (VALUES (1, p_wallets[u.a], 'payout_debit', -p_amounts[u.a]),
                                (2, p_wallets[u.a], 'payout_fee', -v_fees[u.a]),
                                (3, p_wallets[u.a], 'payout_fee_gst', -v_taxes[u.a]),
                                (4, 'PW_FEES', 'payout_fee', v_fees[u.a]),
                                (5, 'PW_GST', 'payout_fee_gst', v_taxes[u.a])) AS v (o, w, k, a)
     WHERE v.a <> 0
     ORDER BY v.o >= 4, u.ord, v.o;
  IF p_job_delay_ms IS NOT NULL THEN
    INSERT INTO jobs (kind, subject_id, run_at)
      SELECT 'payout.advance', p_ids[a], now() + make_interval(secs => p_job_delay_ms / 1000)
        FROM unnest(v_accepted) AS a;
  END IF;
  UPDATE merchant_usage SET amount = amount + v_added
   WHERE merchant_id = p_merchant AND period IN ('D' || p_day, 'M' || p_month);
END $$;
