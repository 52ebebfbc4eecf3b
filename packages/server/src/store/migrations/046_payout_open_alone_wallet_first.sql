-- A group of one takes its wallet before its payout's row, as a larger group does (issue 34).
--
-- Migration 042 let a group of one take its locks as a lone call does: its payout's row first (the insert, whose
-- unique (merchant_id, sender_id) makes another insert of that sender_id wait), then its wallet. A larger group takes
-- its wallets first, then its payouts' rows. When a merchant sends one sender_id to two instances at once (a retry
-- after a timeout, through a load balancer), one instance's group of one and the other's larger group took the same
-- two locks in opposite orders: the group of one inserted the payout and waited for the wallet, which the larger
-- group held while its element of that sender_id waited for the group of one's insert. PostgreSQL found the cycle
-- only after deadlock_timeout (1 s, with every wallet of the larger group held all along) and rolled one statement
-- back; the driver ran it again, at most three times, then every initiation of the group got a 5000. Two instances
-- under load (test/concurrency/payoutOpenGroupsLoad.test.ts) met it three times in a run of about 1,000 groups.
--
-- Now every group, of one or more, takes its wallets first, then its payouts' rows, then its allowance rows: two
-- groups with one sender_id on one wallet (a request sent again names the same wallet) meet at the wallet, and the
-- second waits there for the first, before inserting anything. A group of one locks its wallet only, by the same
-- loop (its allowance rows follow the wallet inside payout_open, in the same order as a group's); a foreign wallet
-- matches no row here and is refused by payout_open_checked before any lock, as alone. Everything else is 042's.
CREATE OR REPLACE FUNCTION payout_open_many(
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
  -- Every group, of one too: its wallets, each by its primary key, one statement a row, in order (042's, see there
  -- why not set-based).
  FOR v_wallet, v_merchant IN
    SELECT DISTINCT u.wallet, u.merchant FROM unnest(p_wallets, p_merchants) AS u (wallet, merchant) ORDER BY 1, 2
  LOOP
    PERFORM 1 FROM wallets WHERE id = v_wallet AND merchant_id = v_merchant FOR NO KEY UPDATE;
  END LOOP;
  -- A larger group then its existing allowance rows; a group of one leaves them to payout_open, which takes them
  -- after the wallet in the same order.
  IF coalesce(array_length(p_ids, 1), 0) > 1 THEN
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
      WHEN deadlock_detected OR serialization_failure THEN
        RAISE;
      WHEN OTHERS THEN
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
