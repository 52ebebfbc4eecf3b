-- A platform wallet's balance is kept in 32 stripes, so that concurrent commits do not queue on one row.
--
-- 038 moved each platform wallet once per commit. That still left one row (PW_FEES, and PW_GST) that every priced
-- payout, collection and deposit of every merchant updated at its commit: the commits queued on its row lock, and
-- each update walked the row's chain of versions that the updates before it had left (until a page prune, which the
-- constant pins of the queued updaters put off). Initiation with a pricing plan cost 2.1 ms of PostgreSQL CPU per
-- request against 0.8 ms without one, at a third of the throughput (npm run bench, issue 30).
--
-- Now the commit adds its sum to one of the wallet's 32 stripe rows, chosen by the backend's process id: two
-- connections rarely share a stripe, and each stripe row's versions are its own connection's alone. The wallet's
-- balance is its `wallets.balance` (what it held before this migration, and what a later fold may move there) plus
-- the sum of its stripes: `platform_wallet_balances` is the one place that adds them, and every reader (the platform
-- view, the ledger's verification, what is owed in all) reads the balance from it.
--
-- Never negative, still guaranteed by the database: a commit that takes from a platform wallet (a fee refunded) first
-- locks the wallet's row, then checks the wallet's whole balance after its own stripe moved. Commits that take are
-- serialised by that lock; commits that add never make a balance smaller, so they need no lock. The lock order is
-- unchanged (ARCHITECTURE.md): the platform wallets are still the last rows a transaction locks, at commit.
--
-- On PGlite, one connection: every commit lands in the same stripe, as it landed in the one row before.

CREATE TABLE platform_balance_stripes (
  wallet_id text NOT NULL REFERENCES wallets (id),
  stripe    int2 NOT NULL CHECK (stripe BETWEEN 0 AND 31),
  balance   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (wallet_id, stripe)
) WITH (fillfactor = 10);
-- fillfactor 10: a stripe's page keeps room for its next versions, so that each update stays a HOT update on the
-- page (no index entry), and a prune has a short chain to clear.

INSERT INTO platform_balance_stripes (wallet_id, stripe)
  SELECT w.id, s FROM wallets w CROSS JOIN generate_series(0, 31) AS s
   WHERE w.id IN ('PW_FEES', 'PW_GST', 'PW_RECOVERY');

-- Every wallet's balance as its ledger sums to: the row's own, plus the stripes for a platform wallet.
CREATE VIEW platform_wallet_balances AS
  SELECT w.id, w.platform_kind,
         (w.balance + coalesce((SELECT sum(s.balance) FROM platform_balance_stripes s WHERE s.wallet_id = w.id), 0))::int8
           AS balance
    FROM wallets w
   WHERE w.platform_kind IS NOT NULL;

-- 038's commit-time application, now into the backend's stripe.
CREATE OR REPLACE FUNCTION ledger_apply_platform() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_wallet text;
  v_key text;
  v_sum int8;
  v_total int8;
BEGIN
  FOREACH v_wallet IN ARRAY ARRAY['PW_FEES', 'PW_GST', 'PW_RECOVERY'] LOOP
    v_key := 'payrail.pending_' || lower(v_wallet);
    v_sum := coalesce(nullif(current_setting(v_key, true), ''), '0')::int8;
    IF v_sum <> 0 THEN
      PERFORM set_config(v_key, '0', true);
      IF v_sum < 0 THEN
        -- Taking: one taker at a time per wallet, and the whole balance checked after this stripe moved.
        PERFORM 1 FROM wallets WHERE id = v_wallet FOR NO KEY UPDATE;
      END IF;
      UPDATE platform_balance_stripes SET balance = balance + v_sum
       WHERE wallet_id = v_wallet AND stripe = pg_backend_pid() % 32;
      IF v_sum < 0 THEN
        SELECT balance INTO v_total FROM platform_wallet_balances WHERE id = v_wallet;
        IF v_total < 0 THEN
          RAISE EXCEPTION 'platform wallet % would go negative (%)', v_wallet, v_total
            USING ERRCODE = 'check_violation';
        END IF;
      END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
