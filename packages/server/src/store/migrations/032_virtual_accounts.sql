-- Funding a wallet by bank transfer (docs/merchant/funding-a-wallet.md): every merchant wallet has a virtual account
-- number, a bank credit to it is a deposit, credited once per UTR and priced by the plan's DEPOSIT rule.

-- The wallet's own part of its virtual account number. The number itself is PAYRAIL_VA_PREFIX, this sequence number
-- as ten digits, and a Luhn check digit (domain/virtualAccount.ts): unique because this is. Existing merchant wallets
-- are numbered in the order they were created; the platform's wallets have none (nothing can be deposited to them).
CREATE SEQUENCE wallet_va_seq;
ALTER TABLE wallets ADD COLUMN va_seq bigint UNIQUE CHECK (va_seq BETWEEN 1 AND 9999999999);
UPDATE wallets w SET va_seq = n.n
  FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM wallets WHERE merchant_id IS NOT NULL) n
 WHERE w.id = n.id;
SELECT setval('wallet_va_seq', coalesce((SELECT max(va_seq) FROM wallets), 0) + 1, false);
ALTER TABLE wallets
  ALTER COLUMN va_seq SET DEFAULT nextval('wallet_va_seq'),
  ADD CONSTRAINT wallets_virtual_account CHECK (merchant_id IS NULL OR va_seq IS NOT NULL);

-- The accounts a merchant accepts deposits from; none listed accepts every remitter.
CREATE TABLE allowed_remitters (
  merchant_id    text NOT NULL REFERENCES merchants (id),
  account_number text NOT NULL CHECK (account_number ~ '^[0-9A-Za-z]{1,34}$'),
  ifsc           text NOT NULL CHECK (ifsc ~ '^[A-Z]{4}0[A-Z0-9]{6}$'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, account_number, ifsc)
);

-- A bank credit to a virtual account, credited to its wallet. Once per UTR (the bank's reference), whichever way it
-- arrived (the PSP's notification, the sandbox, an exception assigned to a wallet). Never changed, never deleted.
CREATE TABLE deposits (
  -- DP + ULID.
  id              text PRIMARY KEY CHECK (id ~ '^DP[0-9A-HJKMNP-TV-Z]{26}$'),
  utr             text NOT NULL CHECK (length(utr) BETWEEN 1 AND 64),
  merchant_id     text NOT NULL REFERENCES merchants (id),
  wallet_id       text NOT NULL REFERENCES wallets (id),
  amount          bigint NOT NULL CHECK (amount > 0),
  fee             bigint NOT NULL DEFAULT 0 CHECK (fee >= 0),
  tax             bigint NOT NULL DEFAULT 0 CHECK (tax >= 0),
  -- The number the bank credited (for an exception assigned to a wallet: the number it reported).
  virtual_account text NOT NULL CHECK (length(virtual_account) BETWEEN 1 AND 40),
  remitter_name   text CHECK (length(remitter_name) <= 140),
  remitter_account text CHECK (length(remitter_account) <= 34),
  remitter_ifsc   text CHECK (length(remitter_ifsc) <= 11),
  -- psp_notify, sandbox, or exception (assigned by an operator: exception_id names it).
  source          text NOT NULL CHECK (source IN ('psp_notify', 'sandbox', 'exception')),
  exception_id    text REFERENCES exceptions (id),
  -- When the bank credited it (as reported); created_at is when Payrail did.
  credited_at     timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((source = 'exception') = (exception_id IS NOT NULL))
);
CREATE UNIQUE INDEX deposits_once_per_utr ON deposits (utr);
CREATE INDEX deposits_by_wallet ON deposits (wallet_id, id);

CREATE FUNCTION deposit_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'deposits are kept as they were credited' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER deposit_guard BEFORE UPDATE OR DELETE ON deposits FOR EACH ROW EXECUTE FUNCTION deposit_guard();

-- Entry kinds: a deposit (merchant +amount), its fee and the fee's GST (merchant −, PW_FEES / PW_GST +), each linked
-- to its deposit, once per deposit, kind and side.
ALTER TABLE ledger_entries
  ADD COLUMN deposit_id text REFERENCES deposits (id),
  DROP CONSTRAINT ledger_entries_kind_check,
  ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('credit', 'payout_debit', 'payout_refund',
    'collection_credit', 'payout_fee', 'payout_fee_gst', 'payout_fee_refund', 'payout_fee_gst_refund',
    'collection_fee', 'collection_fee_gst', 'deposit', 'deposit_fee', 'deposit_fee_gst')),
  DROP CONSTRAINT ledger_entries_sign,
  ADD CONSTRAINT ledger_entries_sign CHECK (CASE
    WHEN kind = 'payout_debit' THEN amount < 0
    WHEN kind IN ('credit', 'payout_refund', 'collection_credit', 'deposit') THEN amount > 0
    WHEN kind IN ('payout_fee', 'payout_fee_gst', 'collection_fee', 'collection_fee_gst', 'deposit_fee',
                  'deposit_fee_gst')
      THEN (wallet_id IN ('PW_FEES', 'PW_GST')) = (amount > 0)
    ELSE (wallet_id IN ('PW_FEES', 'PW_GST')) = (amount < 0) END),
  ADD CONSTRAINT ledger_entries_deposit CHECK ((kind IN ('deposit', 'deposit_fee', 'deposit_fee_gst'))
    = (deposit_id IS NOT NULL));
CREATE UNIQUE INDEX ledger_once_per_deposit ON ledger_entries (deposit_id, kind, wallet_id)
  WHERE deposit_id IS NOT NULL;

-- A deposit to a merchant's wallet, its credit, fee and GST in one statement (as collection_credit): priced by the
-- merchant's DEPOSIT rule as it is now, the charge never more than the amount. Once per UTR: a UTR already credited
-- records nothing and answers that deposit with `out_created` false. Lock order: the new deposit row, the wallet
-- (the ledger trigger), the platform's wallets at commit.
CREATE FUNCTION deposit_credit(
  p_id text, p_wallet text, p_amount int8, p_utr text, p_va text, p_name text, p_account text, p_ifsc text,
  p_source text, p_exception text, p_credited_at timestamptz, p_gst_bp int4
) RETURNS TABLE (out_deposit text, out_created boolean) LANGUAGE plpgsql AS $$
DECLARE
  v_merchant text;
  v_rules jsonb;
  v_fee int8 := 0;
  v_tax int8 := 0;
  v_id text;
BEGIN
  SELECT id INTO v_id FROM deposits WHERE utr = p_utr;
  IF FOUND THEN
    out_deposit := v_id;
    out_created := false;
    RETURN NEXT;
    RETURN;
  END IF;
  SELECT w.merchant_id, p.rules INTO v_merchant, v_rules
    FROM wallets w LEFT JOIN pricing_plans p ON p.merchant_id = w.merchant_id
   WHERE w.id = p_wallet AND w.merchant_id IS NOT NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'wallet % is no merchant''s', p_wallet USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF v_rules IS NOT NULL THEN
    v_fee := pricing_fee(v_rules, 'DEPOSIT', p_amount);
    v_tax := pricing_gst(v_fee, p_gst_bp);
    IF v_fee + v_tax > p_amount THEN
      v_fee := (p_amount * 10000) / (10000 + p_gst_bp);
      v_tax := pricing_gst(v_fee, p_gst_bp);
      WHILE v_fee > 0 AND v_fee + v_tax > p_amount LOOP
        v_fee := v_fee - 1;
        v_tax := pricing_gst(v_fee, p_gst_bp);
      END LOOP;
    END IF;
  END IF;
  INSERT INTO deposits (id, utr, merchant_id, wallet_id, amount, fee, tax, virtual_account, remitter_name,
      remitter_account, remitter_ifsc, source, exception_id, credited_at)
    VALUES (p_id, p_utr, v_merchant, p_wallet, p_amount, v_fee, v_tax, p_va, p_name, p_account, p_ifsc, p_source,
      p_exception, p_credited_at)
    ON CONFLICT (utr) DO NOTHING;
  IF NOT FOUND THEN
    -- Another transaction credited this UTR meanwhile.
    SELECT id INTO STRICT v_id FROM deposits WHERE utr = p_utr;
    out_deposit := v_id;
    out_created := false;
    RETURN NEXT;
    RETURN;
  END IF;
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, deposit_id)
    SELECT v.w, v.k, v.a, 0, p_id
      FROM (VALUES (1, p_wallet, 'deposit', p_amount),
                   (2, p_wallet, 'deposit_fee', -v_fee),
                   (3, p_wallet, 'deposit_fee_gst', -v_tax),
                   (4, 'PW_FEES', 'deposit_fee', v_fee),
                   (5, 'PW_GST', 'deposit_fee_gst', v_tax)) AS v (o, w, k, a)
     WHERE v.a <> 0
     ORDER BY v.o;
  out_deposit := p_id;
  out_created := true;
  RETURN NEXT;
END $$;
