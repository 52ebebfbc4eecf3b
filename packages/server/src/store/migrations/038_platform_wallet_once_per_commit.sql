-- A platform wallet's balance moves once per wallet per commit, not once per entry.
--
-- 029 moved it at commit by a deferred trigger that UPDATEd the wallet's row once for each of its entries. A
-- transaction that writes many fee entries (a bulk initiation, a bank file's deposits, a settlement run, an invoice's
-- credit lines) thus updated one row thousands of times, and each update walked the longer chain of the row's
-- versions that the transaction had left behind: quadratic (10,000 priced deposits took 13.5 s against 11.2 s
-- unpriced). Now each platform entry only adds its amount to a transaction-local setting for its wallet
-- (`payrail.pending_pw_fees`, `…_pw_gst`, `…_pw_recovery`), and the deferred trigger, at commit, applies each
-- wallet's sum with one UPDATE and sets it back to 0, so that the later firings of the same commit find nothing to do.
--
-- Why a setting: set_config(…, true) belongs to the transaction and, like the entries themselves, is undone by a
-- rollback, a ROLLBACK TO SAVEPOINT and a PL/pgSQL exception block (PostgreSQL and PGlite alike); the deferred events
-- of entries so undone are dropped with them. So the sum applied at commit is always the sum of the entries that
-- commit keeps, and balance = sum(entries) holds at every commit as before.
--
-- The lock order is unchanged (ARCHITECTURE.md): the platform wallets' rows are still the last locks a transaction
-- takes, at commit, held for the commit alone; the wallets that have something to apply are updated in id order
-- (PW_FEES, PW_GST, PW_RECOVERY), whatever order their entries came in.
--
-- The trigger that adds is named to sort before ledger_apply_platform: should a transaction make the constraint
-- trigger IMMEDIATE (SET CONSTRAINTS), both fire at the end of the statement, in name order, each row's addition first.

CREATE FUNCTION ledger_add_pending_platform() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_key text := 'payrail.pending_' || lower(NEW.wallet_id);
BEGIN
  PERFORM set_config(v_key, (coalesce(nullif(current_setting(v_key, true), ''), '0')::int8 + NEW.amount)::text, true);
  RETURN NULL;
END $$;
-- AFTER, not BEFORE: only the rows actually inserted count (a row that ON CONFLICT skips adds nothing).
CREATE TRIGGER ledger_add_pending_platform AFTER INSERT ON ledger_entries
  FOR EACH ROW WHEN (NEW.wallet_id IN ('PW_FEES', 'PW_GST', 'PW_RECOVERY')) EXECUTE FUNCTION ledger_add_pending_platform();

-- 029's deferred constraint trigger keeps its name, its events (one per platform entry) and its WHEN; only what it
-- does changes: whatever is pending, for every platform wallet, is applied by the first firing of the commit.
CREATE OR REPLACE FUNCTION ledger_apply_platform() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_wallet text;
  v_key text;
  v_sum int8;
BEGIN
  FOREACH v_wallet IN ARRAY ARRAY['PW_FEES', 'PW_GST', 'PW_RECOVERY'] LOOP
    v_key := 'payrail.pending_' || lower(v_wallet);
    v_sum := coalesce(nullif(current_setting(v_key, true), ''), '0')::int8;
    IF v_sum <> 0 THEN
      PERFORM set_config(v_key, '0', true);
      UPDATE wallets SET balance = balance + v_sum, updated_at = now() WHERE id = v_wallet;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
