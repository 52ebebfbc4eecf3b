-- Initiations in groups (issue 34): the single initiations that reach an instance's store together are opened by one
-- statement, `payout_open_many`, instead of one `payout_open_checked` each, so that they share one round trip, one
-- statement's overhead and one commit.
--
-- Each element is opened by `payout_open_checked` itself (migrations 013, 029), which calls `payout_open` (033, and
-- whatever later migrations make of its body): an element gets exactly what a lone call would, the same checks and
-- the same refusals, in the same order. Each runs in its own exception block (a subtransaction), so a refusal undoes
-- that element's writes only (its payout row, job, ledger entries, allowances, and the transaction-local sums of
-- the platform wallets' fees, migration 038) and never fails another element. The elements are opened in the
-- arrays' order, which is the order they reached the store: a wallet's payouts are applied in arrival order, and
-- a sender_id repeated within the group is opened by its first element and answered as a duplicate for the later
-- ones (unless the first was refused, as one after the other alone).
--
-- Locks (ARCHITECTURE.md, "Row locks, in one order"): before the first element, the group's wallets in id order,
-- then the allowance rows that already exist in (merchant, period) order, a merchant's day row before its month row.
-- Element by element, a wallet would be taken in arrival order, so two groups (two instances) holding each other's
-- next wallet would deadlock; sorted up front they cannot, nor can a group and the worker, which takes wallets then
-- allowances in the same orders. Only the wallets an element may debit are locked (its merchant's own: a foreign
-- wallet is refused before any lock, as alone). An allowance row that does not exist yet is created by its first
-- element, as alone. The platform wallets stay the last locks, taken at commit (migration 038).
--
-- Each row answers one element, by position (1-based): a recorded payout in `o_payout`; or nothing in both
-- `o_payout` and `o_sqlstate` for a sender_id the merchant already used (as `payout_open_checked` returns no row);
-- or the SQLSTATE and message of the error that refused it (PR001, PR008, PR002, PR010, PR011, PR015, or any other,
-- which the caller raises for that element alone). A deadlock or serialization failure, or a plan that a migration
-- made stale, is not an element's answer: it fails the statement, and the driver runs it again.
CREATE FUNCTION payout_open_many(
  p_ids text[], p_merchants text[], p_cvs int4[], p_wallets text[], p_senders text[], p_amounts int8[],
  p_modes text[], p_names text[], p_accounts text[], p_ifscs text[], p_banks text[], p_remarks text[],
  p_callbacks text[], p_schemes text[], p_messages text[], p_rails text[], p_days text[], p_months text[],
  p_ats timestamptz[], p_job_delays float8[], p_gst_bps int4[], p_require_pricing boolean[]
) RETURNS TABLE (o_pos int4, o_sqlstate text, o_message text, o_payout payouts) LANGUAGE plpgsql AS $$
DECLARE
  i int4;
  v_payout payouts;
  v_wallet text;
  v_merchant text;
  v_period text;
BEGIN
  -- A group of one takes its locks as a lone call does (payout_open_checked, in the same order): nothing to sort,
  -- and nothing added to the lone cost. Otherwise each row by its primary key, one statement a row, in order: a key
  -- lookup always reads one row's versions, where a set-based lock (IN (…) ORDER BY … FOR NO KEY UPDATE) is planned
  -- once for any group and may scan the whole table, every version of rows each payout rewrites. NO KEY UPDATE, as
  -- payout_open takes them.
  IF coalesce(array_length(p_ids, 1), 0) > 1 THEN
    FOR v_wallet, v_merchant IN
      SELECT DISTINCT u.wallet, u.merchant FROM unnest(p_wallets, p_merchants) AS u (wallet, merchant) ORDER BY 1, 2
    LOOP
      PERFORM 1 FROM wallets WHERE id = v_wallet AND merchant_id = v_merchant FOR NO KEY UPDATE;
    END LOOP;
    FOR v_merchant, v_period IN
      SELECT DISTINCT p.merchant, p.period
        FROM (SELECT u.merchant, 'D' || u.day AS period FROM unnest(p_merchants, p_days) AS u (merchant, day)
              UNION ALL
              SELECT u.merchant, 'M' || u.month FROM unnest(p_merchants, p_months) AS u (merchant, month)) AS p
       ORDER BY 1, 2
    LOOP
      PERFORM 1 FROM merchant_usage WHERE merchant_id = v_merchant AND period = v_period FOR NO KEY UPDATE;
    END LOOP;
  END IF;

  FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
    o_pos := i;
    o_sqlstate := NULL;
    o_message := NULL;
    o_payout := NULL;
    BEGIN
      SELECT * INTO v_payout
        FROM payout_open_checked(p_ids[i], p_merchants[i], p_cvs[i], p_wallets[i], p_senders[i], p_amounts[i],
          p_modes[i], p_names[i], p_accounts[i], p_ifscs[i], p_banks[i], p_remarks[i], p_callbacks[i], p_schemes[i],
          p_messages[i], p_rails[i], p_days[i], p_months[i], p_ats[i], p_job_delays[i], p_gst_bps[i],
          p_require_pricing[i]);
      IF FOUND THEN
        o_payout := v_payout;
      END IF;
    EXCEPTION
      -- A deadlock or serialization victim fails the whole statement, which the driver runs again (as it would a
      -- lone call's); answered per element, it would lose a payout the retry would have opened.
      WHEN deadlock_detected OR serialization_failure THEN
        RAISE;
      WHEN OTHERS THEN
        -- Nor is a plan that a migration made stale (a table gained a column while this instance serves): it fails
        -- the statement, which the driver runs again on a fresh connection, as it does for a lone call
        -- (store/pgDatabase.ts); answered per element, every initiation of the group would get a 5000.
        IF (SQLSTATE = '0A000' AND SQLERRM LIKE 'cached plan must not change result type%')
           OR (SQLSTATE = '42804' AND SQLERRM LIKE 'structure of query does not match function result type%') THEN
          RAISE;
        END IF;
        o_sqlstate := SQLSTATE;
        o_message := SQLERRM;
    END;
    RETURN NEXT;
  END LOOP;
END $$;
