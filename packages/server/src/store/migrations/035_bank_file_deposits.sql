-- Deposits from the bank's files (docs/operator/bank-files.md, "Deposits"): a credit in a camt.054, camt.053 or
-- MT940 of the bank-file inbox that names a virtual account is a deposit like the PSP's notification, credited once
-- per UTR whichever way it came first; and reconciliation matches a statement's credit to its deposit.

ALTER TABLE deposits
  DROP CONSTRAINT deposits_source_check,
  ADD CONSTRAINT deposits_source_check CHECK (source IN ('psp_notify', 'sandbox', 'exception', 'bank_file'));

-- The fee of one deposit by the plan's DEPOSIT rule (migration 032's deposit_credit, written once for the set below):
-- the charge is never more than the amount, the fee lowered until fee + GST fits. Its GST is pricing_gst of it.
CREATE FUNCTION deposit_fee(p_rules jsonb, p_amount int8, p_gst_bp int4) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_fee int8 := pricing_fee(p_rules, 'DEPOSIT', p_amount);
BEGIN
  IF v_fee + pricing_gst(v_fee, p_gst_bp) > p_amount THEN
    v_fee := (p_amount * 10000) / (10000 + p_gst_bp);
    WHILE v_fee > 0 AND v_fee + pricing_gst(v_fee, p_gst_bp) > p_amount LOOP
      v_fee := v_fee - 1;
    END LOOP;
  END IF;
  RETURN v_fee;
END $$;

-- deposit_credit for a whole file, in two steps so that a file's transaction keeps the lock order (ARCHITECTURE.md)
-- with the payouts it moves: deposit_insert_many records the deposit rows (the first step, beside its payouts), the
-- caller then locks every wallet the file writes in id order, and deposit_ledger_many writes the deposits' credits,
-- fees and GST. Each is one statement whatever the number of deposits (10,000 credits of one camt.054 in well under
-- the 5 s the issue asks).
--
-- deposit_insert_many takes arrays of one element per deposit, its wallet already decided by the caller (a merchant
-- wallet: an unknown number or a refused remitter never gets here), priced by the merchant's DEPOSIT rule as it is
-- now. Once per UTR: a UTR credited before (by the PSP, the sandbox, an earlier file) or earlier in the same arrays
-- records nothing and answers that deposit with `out_created` false. Rows are inserted in UTR order; a concurrent
-- report of the same UTR waits on the unique index, then credits nothing.
CREATE FUNCTION deposit_insert_many(
  p_ids text[], p_wallets text[], p_amounts int8[], p_utrs text[], p_vas text[], p_names text[], p_accounts text[],
  p_ifscs text[], p_credited_at timestamptz[], p_source text, p_gst_bp int4
) RETURNS TABLE (out_ord int4, out_created boolean, id text, utr text, merchant_id text, wallet_id text, amount int8,
  fee int8, tax int8, virtual_account text, remitter_name text, remitter_account text, remitter_ifsc text,
  source text, exception_id text, credited_at timestamptz, created_at timestamptz) LANGUAGE plpgsql AS $$
-- The answer's columns are named as the deposit's: inside, a name is always the table's column.
#variable_conflict use_column
BEGIN
  WITH input AS (
    SELECT DISTINCT ON (u.utr) u.*
      FROM unnest(p_ids, p_wallets, p_amounts, p_utrs, p_vas, p_names, p_accounts, p_ifscs, p_credited_at)
             WITH ORDINALITY AS u (id, wallet, amount, utr, va, name, account, ifsc, credited_at, ord)
     ORDER BY u.utr, u.ord
  )
  INSERT INTO deposits (id, utr, merchant_id, wallet_id, amount, fee, tax, virtual_account, remitter_name,
      remitter_account, remitter_ifsc, source, credited_at)
    SELECT i.id, i.utr, c.merchant_id, i.wallet, i.amount, c.fee, pricing_gst(c.fee, p_gst_bp), i.va, i.name,
           i.account, i.ifsc, p_source, i.credited_at
      FROM input i
      JOIN (SELECT w.id, w.merchant_id,
                   -- A merchant without a plan (or whose plan does not price DEPOSIT) pays nothing: no call for it.
                   p.rules ? 'DEPOSIT' AS priced, p.rules
              FROM wallets w LEFT JOIN pricing_plans p ON p.merchant_id = w.merchant_id
             WHERE w.merchant_id IS NOT NULL) w ON w.id = i.wallet
      CROSS JOIN LATERAL (SELECT w.merchant_id,
                                 CASE WHEN w.priced THEN deposit_fee(w.rules, i.amount, p_gst_bp) ELSE 0 END AS fee) c
     ORDER BY i.utr
    ON CONFLICT (utr) DO NOTHING;

  -- Each element's deposit as recorded: created now when it carries this element's new id (ids are fresh), else the
  -- earlier one. Answered whole, so that the caller reads nothing again for the webhooks.
  RETURN QUERY
    SELECT u.ord::int4, d.id = u.id, d.id, d.utr, d.merchant_id, d.wallet_id, d.amount, d.fee, d.tax,
           d.virtual_account, d.remitter_name, d.remitter_account, d.remitter_ifsc, d.source, d.exception_id,
           d.credited_at, d.created_at
      FROM unnest(p_ids, p_utrs) WITH ORDINALITY AS u (id, utr, ord)
      JOIN deposits d ON d.utr = u.utr
     ORDER BY u.ord;
END $$;

-- The credit, fee and GST entries of deposits just inserted (deposit_insert_many), by wallet in id order, each
-- wallet's deposits in id order; the caller holds the wallets' locks already. Once per deposit (the ledger's unique
-- index refuses a second).
CREATE FUNCTION deposit_ledger_many(p_ids text[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, deposit_id)
    SELECT v.w, v.k, v.a, 0, d.id
      FROM unnest(p_ids) AS u (id)
      JOIN deposits d ON d.id = u.id
      CROSS JOIN LATERAL (VALUES (1, d.wallet_id, 'deposit', d.amount),
                                 (2, d.wallet_id, 'deposit_fee', -d.fee),
                                 (3, d.wallet_id, 'deposit_fee_gst', -d.tax),
                                 (4, 'PW_FEES', 'deposit_fee', d.fee),
                                 (5, 'PW_GST', 'deposit_fee_gst', d.tax)) AS v (o, w, k, a)
     WHERE v.a <> 0
     ORDER BY d.wallet_id, d.id, v.o
$$;

-- Reconciliation matches a statement's credit to the deposit its UTR credited (matched_kind 'deposit').
ALTER TABLE reconciliation_items
  ADD COLUMN deposit_id text,
  DROP CONSTRAINT reconciliation_items_matched_kind_check,
  ADD CONSTRAINT reconciliation_items_matched_kind_check
    CHECK (matched_kind IN ('payout', 'return', 'collection', 'wallet_credit', 'deposit'));
