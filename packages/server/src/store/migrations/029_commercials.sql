-- Commercials (docs/operator/charging-merchants.md): a pricing plan per merchant, fees and GST charged as ledger
-- entries between the merchant's wallet and the platform's own wallets, in the statement that moves the money they
-- are charged on, and given back by the database whenever the payout's amount is.

-- The platform's wallets: fee income, GST payable, and recovery (liens enforced, differences written off). They
-- belong to no merchant; their ids are fixed and cannot be a merchant's (WL + ULID).
ALTER TABLE wallets
  ALTER COLUMN merchant_id DROP NOT NULL,
  ADD COLUMN platform_kind text UNIQUE CHECK (platform_kind IN ('fees', 'gst', 'recovery')),
  ADD CONSTRAINT wallets_one_owner CHECK ((merchant_id IS NULL) = (platform_kind IS NOT NULL));
INSERT INTO wallets (id, platform_kind) VALUES ('PW_FEES', 'fees'), ('PW_GST', 'gst'), ('PW_RECOVERY', 'recovery');

-- Entry kinds: the fee and its GST on a payout, their refunds, the fee and its GST on a collection. Each movement is
-- two entries of one kind: the merchant's side and the platform wallet's, with opposite signs.
ALTER TABLE ledger_entries
  DROP CONSTRAINT ledger_entries_kind_check,
  ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('credit', 'payout_debit', 'payout_refund',
    'collection_credit', 'payout_fee', 'payout_fee_gst', 'payout_fee_refund', 'payout_fee_gst_refund',
    'collection_fee', 'collection_fee_gst')),
  DROP CONSTRAINT ledger_entries_check,
  -- The sign says the direction: a charge leaves the merchant (negative) and reaches the platform (positive); its
  -- refund the other way round.
  ADD CONSTRAINT ledger_entries_sign CHECK (CASE
    WHEN kind = 'payout_debit' THEN amount < 0
    WHEN kind IN ('credit', 'payout_refund', 'collection_credit') THEN amount > 0
    WHEN kind IN ('payout_fee', 'payout_fee_gst', 'collection_fee', 'collection_fee_gst')
      THEN (wallet_id IN ('PW_FEES', 'PW_GST')) = (amount > 0)
    ELSE (wallet_id IN ('PW_FEES', 'PW_GST')) = (amount < 0) END),
  DROP CONSTRAINT ledger_entries_check1,
  ADD CONSTRAINT ledger_entries_payout CHECK ((kind IN ('payout_debit', 'payout_refund', 'payout_fee',
    'payout_fee_gst', 'payout_fee_refund', 'payout_fee_gst_refund')) = (payout_id IS NOT NULL)),
  DROP CONSTRAINT ledger_entries_check2,
  ADD CONSTRAINT ledger_entries_collection CHECK ((kind IN ('collection_credit', 'collection_fee',
    'collection_fee_gst')) = (collection_id IS NOT NULL)),
  -- A platform wallet's running balance is kept at commit (below), not per entry.
  ALTER COLUMN balance_after DROP NOT NULL;

-- Once per payout, kind and side (was: per payout and kind); once per collection, kind and side (was: per collection).
DROP INDEX ledger_once_per_payout;
CREATE UNIQUE INDEX ledger_once_per_payout ON ledger_entries (payout_id, kind, wallet_id) WHERE payout_id IS NOT NULL;
DROP INDEX ledger_once_per_collection;
CREATE UNIQUE INDEX ledger_once_per_collection ON ledger_entries (collection_id, kind, wallet_id)
  WHERE collection_id IS NOT NULL;

-- A merchant wallet moves with each entry, as before. A platform wallet would be a row every payout of every merchant
-- updates: its row lock, taken in the middle of a transaction, would serialise them all and break the lock order
-- (payouts → wallets → allowances) wherever a transaction touches an allowance before a fee. So a platform wallet's
-- balance moves at commit (the deferred trigger below): the last lock any transaction takes, held for the commit
-- alone. Its entries carry no balance_after; balance = sum(entries) holds at every commit all the same.
CREATE OR REPLACE FUNCTION ledger_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.wallet_id IN ('PW_FEES', 'PW_GST', 'PW_RECOVERY') THEN
    NEW.balance_after := NULL;
    RETURN NEW;
  END IF;
  UPDATE wallets SET balance = balance + NEW.amount, updated_at = now()
   WHERE id = NEW.wallet_id
  RETURNING balance INTO NEW.balance_after;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'wallet % does not exist', NEW.wallet_id USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END $$;

CREATE FUNCTION ledger_apply_platform() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE wallets SET balance = balance + NEW.amount, updated_at = now() WHERE id = NEW.wallet_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_apply_platform AFTER INSERT ON ledger_entries DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.wallet_id IN ('PW_FEES', 'PW_GST', 'PW_RECOVERY')) EXECUTE FUNCTION ledger_apply_platform();

-- A payout's amount coming back (a failure's refund, a return, an operator's refund in full) brings its fee and GST
-- back with it, whichever path wrote the refund: both sides of each charge, reversed, in the order they were made.
CREATE FUNCTION ledger_refund_fees() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
    SELECT e.wallet_id, e.kind || '_refund', -e.amount, 0, e.payout_id
      FROM ledger_entries e
     WHERE e.payout_id = NEW.payout_id AND e.kind IN ('payout_fee', 'payout_fee_gst')
     ORDER BY e.id;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_refund_fees AFTER INSERT ON ledger_entries
  FOR EACH ROW WHEN (NEW.kind = 'payout_refund') EXECUTE FUNCTION ledger_refund_fees();

-- Pricing plans: one per merchant. `rules` is the plan in paise, as the server normalised it
-- (domain/pricingPlan.ts): {"IMPS": [{"up_to": 100000|null, "flat": 200, "bps": 0, "min": null, "max": null}, …]}.
CREATE TABLE pricing_plans (
  merchant_id text PRIMARY KEY REFERENCES merchants (id),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  rules       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The fee of one transaction: the first slab whose `up_to` (inclusive) covers the amount, flat + amount × bps / 10000
-- rounded half-up to the paisa, clamped to [min, max]. A product the plan does not name is free. The one place this
-- rule is computed: initiation, bulk, dry runs and collections all call it.
CREATE FUNCTION pricing_fee(p_rules jsonb, p_product text, p_amount int8) RETURNS int8
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce((
    SELECT greatest(coalesce((s ->> 'min')::int8, 0),
             least(coalesce((s ->> 'max')::int8, 9223372036854775807),
               coalesce((s ->> 'flat')::int8, 0) + (p_amount * coalesce((s ->> 'bps')::int8, 0) + 5000) / 10000))
      FROM jsonb_array_elements(p_rules -> p_product) WITH ORDINALITY AS e (s, n)
     WHERE s ->> 'up_to' IS NULL OR p_amount <= (s ->> 'up_to')::int8
     ORDER BY n
     LIMIT 1), 0)
$$;

-- GST on a fee at `p_rate_bp` hundredths of a percent (18 % = 1800), half-up to the paisa.
CREATE FUNCTION pricing_gst(p_fee int8, p_rate_bp int4) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (p_fee * p_rate_bp + 5000) / 10000
$$;

-- What was charged, kept on the transaction (the answer's `fees` and `tax`, also after a refund).
ALTER TABLE payouts
  ADD COLUMN fee bigint NOT NULL DEFAULT 0 CHECK (fee >= 0),
  ADD COLUMN tax bigint NOT NULL DEFAULT 0 CHECK (tax >= 0);
ALTER TABLE collections
  ADD COLUMN fee bigint NOT NULL DEFAULT 0 CHECK (fee >= 0),
  ADD COLUMN tax bigint NOT NULL DEFAULT 0 CHECK (tax >= 0);

-- 017's guard, with fee and tax as immutable as the amount.
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
     OR NEW.amount <> OLD.amount OR NEW.scheme <> OLD.scheme OR NEW.fee <> OLD.fee OR NEW.tax <> OLD.tax THEN
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

-- 003's guard; a collection's fee and tax are set by its credit (collection_credit below) and never change after.
CREATE OR REPLACE FUNCTION collection_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'INITIATED' THEN
      RAISE EXCEPTION 'a collection starts INITIATED' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.merchant_id <> OLD.merchant_id OR NEW.wallet_id <> OLD.wallet_id OR NEW.amount <> OLD.amount
     OR NEW.sender_id <> OLD.sender_id OR (OLD.status = 'SUCCESS' AND (NEW.fee <> OLD.fee OR NEW.tax <> OLD.tax)) THEN
    RAISE EXCEPTION 'collection % is immutable but for its status', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND (OLD.status, NEW.status) NOT IN (
       ('INITIATED', 'PENDING'), ('INITIATED', 'SUCCESS'), ('INITIATED', 'FAILED'),
       ('PENDING', 'SUCCESS'), ('PENDING', 'FAILED')) THEN
    RAISE EXCEPTION 'illegal collection transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status = 'SUCCESS' AND OLD.status <> 'SUCCESS' AND NOT EXISTS (
       SELECT 1 FROM ledger_entries WHERE collection_id = NEW.id AND kind = 'collection_credit') THEN
    RAISE EXCEPTION 'collection % is SUCCESS only after its credit entry', NEW.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;

-- A collection's credit, then its fee and GST, in one statement (the caller's transaction holds the collection).
-- The charge never exceeds what was collected: past it, the fee is lowered so that fee + GST fits the amount.
-- Returns the fee and tax charged.
CREATE FUNCTION collection_credit(p_collection text, p_gst_bp int4) RETURNS TABLE (charged_fee int8, charged_tax int8)
  LANGUAGE plpgsql AS $$
DECLARE
  v_c collections;
  v_rules jsonb;
  v_fee int8 := 0;
  v_tax int8 := 0;
BEGIN
  SELECT * INTO STRICT v_c FROM collections WHERE id = p_collection;
  SELECT rules INTO v_rules FROM pricing_plans WHERE merchant_id = v_c.merchant_id;
  IF v_rules IS NOT NULL THEN
    v_fee := pricing_fee(v_rules, 'UPI_COLLECTION', v_c.amount);
    v_tax := pricing_gst(v_fee, p_gst_bp);
    IF v_fee + v_tax > v_c.amount THEN
      v_fee := (v_c.amount * 10000) / (10000 + p_gst_bp);
      v_tax := pricing_gst(v_fee, p_gst_bp);
      WHILE v_fee > 0 AND v_fee + v_tax > v_c.amount LOOP
        v_fee := v_fee - 1;
        v_tax := pricing_gst(v_fee, p_gst_bp);
      END LOOP;
    END IF;
  END IF;
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, collection_id)
    SELECT v.w, v.k, v.a, 0, p_collection
      FROM (VALUES (1, v_c.wallet_id, 'collection_credit', v_c.amount),
                   (2, v_c.wallet_id, 'collection_fee', -v_fee),
                   (3, v_c.wallet_id, 'collection_fee_gst', -v_tax),
                   (4, 'PW_FEES', 'collection_fee', v_fee),
                   (5, 'PW_GST', 'collection_fee_gst', v_tax)) AS v (o, w, k, a)
     WHERE v.a <> 0
     ORDER BY v.o;
  IF v_fee <> 0 OR v_tax <> 0 THEN
    UPDATE collections SET fee = v_fee, tax = v_tax WHERE id = p_collection;
  END IF;
  charged_fee := v_fee;
  charged_tax := v_tax;
  RETURN NEXT;
END $$;

-- 004's payout_open with the fee and its GST: kept on the payout, debited with the amount in the same INSERT, the
-- balance checked on the total. The platform's entries come after the merchant's (the lock order, above).
DROP FUNCTION payout_open_checked(text, text, int, text, text, int8, text, text, text, text, text, text, text, text,
  text, text, text, text, timestamptz, float8);
DROP FUNCTION payout_open(text, text, text, text, int8, text, text, text, text, text, text, text, text, text, text,
  text, text, timestamptz, int8, int8, float8);
CREATE FUNCTION payout_open(
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

-- 013's checks, plus the merchant's plan: PR015 when `p_require_pricing` and the merchant has none; otherwise the
-- fee from the plan as it is now (a plan change binds the next payout on every instance), GST at `p_gst_bp`.
CREATE FUNCTION payout_open_checked(
  p_id text, p_merchant text, p_cv int, p_wallet text, p_sender text, p_amount int8, p_mode text,
  p_name text, p_account text, p_ifsc text, p_bank text, p_remarks text, p_callback text, p_scheme text,
  p_message text, p_rail text, p_day text, p_month text, p_at timestamptz, p_job_delay_ms float8,
  p_gst_bp int4, p_require_pricing boolean
) RETURNS SETOF payouts LANGUAGE plpgsql AS $$
DECLARE
  v_status text;
  v_cv int;
  v_daily int8;
  v_monthly int8;
  v_rules jsonb;
  v_fee int8 := 0;
BEGIN
  SELECT m.status, m.credentials_version, m.daily_limit, m.monthly_limit, p.rules
    INTO v_status, v_cv, v_daily, v_monthly, v_rules
    FROM merchants m LEFT JOIN pricing_plans p ON p.merchant_id = m.id
   WHERE m.id = p_merchant;
  IF NOT FOUND OR v_status <> 'active' OR v_cv <> p_cv THEN
    RAISE EXCEPTION 'merchant % is not active with these credentials', p_merchant USING ERRCODE = 'PR001';
  END IF;
  PERFORM 1 FROM wallets WHERE id = p_wallet AND merchant_id = p_merchant;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'wallet % is not the merchant''s', p_wallet USING ERRCODE = 'PR008';
  END IF;
  IF v_rules IS NULL THEN
    IF p_require_pricing THEN
      RAISE EXCEPTION 'merchant % has no pricing plan', p_merchant USING ERRCODE = 'PR015';
    END IF;
  ELSE
    v_fee := pricing_fee(v_rules, p_mode, p_amount);
  END IF;
  RETURN QUERY SELECT * FROM payout_open(p_id, p_merchant, p_wallet, p_sender, p_amount, p_mode, p_name, p_account,
    p_ifsc, p_bank, p_remarks, p_callback, p_scheme, p_message, p_rail, p_day, p_month, p_at, v_daily, v_monthly,
    p_job_delay_ms, v_fee, pricing_gst(v_fee, p_gst_bp));
END $$;

-- 008's payout_open_batch with each item priced as a single payout would be (the plan read once), its balance check on
-- amount + fee + GST, and 4015 for every item when `p_require_pricing` and the merchant has no plan. Each row also
-- says what an accepted item is charged (a dry run shows the batch's fees from them).
DROP FUNCTION payout_open_batch(text, text, text, text, text, text, text, timestamptz, int8, int8, float8, text[],
  text[], text[], int8[], text[], text[], text[], text[], text[], text[], text[], int4[]);
CREATE FUNCTION payout_open_batch(
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
