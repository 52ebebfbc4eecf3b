-- Each wallet's balance at the end of each UTC day on which it moved, so that a statement's opening balance costs a
-- day's entries, not the wallet's whole history (issue 35: one day of the busiest wallet at a million payouts took
-- 113 ms, against 4 ms on an empty database, nearly all of it the sum of every earlier entry).
--
-- ledger_day_closings (wallet_id, day, closing): the sum of the wallet's entries created before the start of the UTC
-- day after `day`, for every day before ledger_closings.closed_until on which the wallet has an entry. A statement
-- from T opens with the last closing before T's day plus the entries from the day after that closing up to T
-- (StatementRepository.openingBalance).
--
-- Why days are closed after the fact, not by the ledger's trigger: an entry's created_at is its transaction's start
-- (now()), so entries are not applied in created_at order, and a wallet's rolling day kept on its row would need
-- a fix-up on every late entry and one more write per entry on the initiation path. Closing a day instead costs
-- the worker one pass a day (ledger_close_days, jobs/LedgerClosings.ts) and costs the initiation path nothing.
--
-- ledger_day_kind_totals (day, kind, total, on_platform): the sum of each kind's entries over all wallets that day,
-- and whether any of them is on a platform wallet (fees, GST, recovery: the other side of a double entry), for the
-- same days. With the closings they let GET /admin/v1/ledger/verify add only the entries of the days not yet closed
-- (LedgerRepository.verify); `?full=true` still re-adds every entry.
--
-- When a day is final: every entry created before its end has been committed or rolled back, which holds once
-- no transaction that started before its end is still open (created_at is its transaction's start). The closing
-- pass reads the open transactions' starts from pg_stat_activity (client backends of this database; PostgreSQL
-- shows another role's start only to a superuser or pg_read_all_stats, so every Payrail instance of a database
-- connects as one role, as docs/operator/operations.md says); PGlite runs one transaction at a time, so there the
-- pass's own start is the bound. Ten minutes' slack on top.
--
-- An entry written with an explicit created_at in the past (a loader, an import, a test's fixture; the server's own
-- statements never do) may land in a day already closed: the trigger ledger_closing_backdated adds it to that day's
-- closing and every later one. Its WHEN compares with now(), which is what a default created_at is, so the
-- server's own entries never fire it. The pass and such an insert exclude each other through ledger_closings'
-- table lock (SHARE ROW EXCLUSIVE against ROW EXCLUSIVE): the pass waits for a back-dating transaction to commit,
-- and a back-dating insert waits for the pass, then sees the days it closed.
--
-- Lock order (ARCHITECTURE.md): the pass takes no row lock but the ledger_closings row, and no wallet lock; a
-- back-dating insert takes ledger_closings' table lock after whatever its transaction holds. The pass holds nothing
-- a ledger writer waits for, so the two never deadlock.
--
-- The ledger is append-only (ledger_append_only), so a closing never goes stale otherwise. Platform wallets are
-- closed like any other: the closings are sums of entries, not of the balances the stripes hold (migration 040).

CREATE TABLE ledger_day_closings (
  wallet_id text   NOT NULL,
  day       date   NOT NULL,
  closing   bigint NOT NULL,
  PRIMARY KEY (wallet_id, day)
);

CREATE TABLE ledger_day_kind_totals (
  day         date    NOT NULL,
  kind        text    NOT NULL,
  -- numeric: a kind's total over every wallet (credits, say) is not bounded by one wallet's balance.
  total       numeric NOT NULL,
  on_platform boolean NOT NULL,
  PRIMARY KEY (day, kind)
);

-- One row: the first UTC day not yet closed (null: none closed yet).
CREATE TABLE ledger_closings (
  one          boolean PRIMARY KEY DEFAULT true CHECK (one),
  closed_until date
);
INSERT INTO ledger_closings (one, closed_until) VALUES (true, NULL);

-- The instant before which every day is final: ten minutes ago, or ten minutes before the oldest transaction of this
-- database still open began, whichever is earlier. Every entry created before it is committed or rolled back.
CREATE FUNCTION ledger_final_before() RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT least(now(), (SELECT min(xact_start) FROM pg_stat_activity
                        WHERE datname = current_database() AND backend_type = 'client backend'
                          AND pid <> pg_backend_pid() AND xact_start IS NOT NULL)) - interval '10 minutes'
$$;

-- Closes the final days from closed_until on, at most p_max_days of them; returns how many it closed (0: none was
-- final, or nothing is left). The first call on a database with history starts at its first entry's day.
CREATE FUNCTION ledger_close_days(p_max_days integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_from date;
  v_to date;
BEGIN
  -- First the lock, then the open transactions: a back-dating insert that began before is committed by now.
  LOCK TABLE ledger_closings IN SHARE ROW EXCLUSIVE MODE;
  -- Days before v_to ended before ledger_final_before().
  v_to := (ledger_final_before() AT TIME ZONE 'UTC')::date;
  SELECT closed_until INTO v_from FROM ledger_closings;
  IF v_from IS NULL THEN
    -- The first entry of any wallet, one index lookup per wallet (ledger_by_wallet_time, migration 041).
    SELECT (min(f.created_at) AT TIME ZONE 'UTC')::date INTO v_from
      FROM wallets w
      CROSS JOIN LATERAL (SELECT created_at FROM ledger_entries e WHERE e.wallet_id = w.id
                           ORDER BY created_at LIMIT 1) f;
    IF v_from IS NULL THEN
      RETURN 0;
    END IF;
  END IF;
  v_to := least(v_to, v_from + p_max_days);
  IF v_to <= v_from THEN
    RETURN 0;
  END IF;
  -- Per wallet, the sum of each day's entries (an index-only range of ledger_by_wallet_time), added to the wallet's
  -- last closing so far.
  INSERT INTO ledger_day_closings (wallet_id, day, closing)
  SELECT w.id, d.day,
         coalesce(prev.closing, 0) + sum(d.total) OVER (PARTITION BY w.id ORDER BY d.day)
    FROM wallets w
    CROSS JOIN LATERAL (
      SELECT (e.created_at AT TIME ZONE 'UTC')::date AS day, sum(e.amount) AS total
        FROM ledger_entries e
       WHERE e.wallet_id = w.id
         AND e.created_at >= (v_from::timestamp AT TIME ZONE 'UTC')
         AND e.created_at < (v_to::timestamp AT TIME ZONE 'UTC')
       GROUP BY 1) d
    LEFT JOIN LATERAL (
      SELECT c.closing FROM ledger_day_closings c
       WHERE c.wallet_id = w.id AND c.day < v_from
       ORDER BY c.day DESC LIMIT 1) prev ON true;
  -- The same days' totals per kind: per wallet, the same range read again by day and kind (each entry's kind from
  -- the table), then added up over the wallets. Per wallet, as a lateral with its own GROUP BY, so that the range
  -- stays an index range for any plan (as a plain join, a generic plan may read the whole ledger).
  INSERT INTO ledger_day_kind_totals (day, kind, total, on_platform)
  SELECT k.day, k.kind, sum(k.total), coalesce(bool_or(w.platform_kind IN ('fees', 'gst', 'recovery')), false)
    FROM wallets w
    CROSS JOIN LATERAL (
      SELECT (e.created_at AT TIME ZONE 'UTC')::date AS day, e.kind, sum(e.amount) AS total
        FROM ledger_entries e
       WHERE e.wallet_id = w.id
         AND e.created_at >= (v_from::timestamp AT TIME ZONE 'UTC')
         AND e.created_at < (v_to::timestamp AT TIME ZONE 'UTC')
       GROUP BY 1, 2) k
   GROUP BY 1, 2;
  UPDATE ledger_closings SET closed_until = v_to;
  RETURN v_to - v_from;
END $$;

CREATE FUNCTION ledger_closing_backdated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_day date := (NEW.created_at AT TIME ZONE 'UTC')::date;
  v_until date;
BEGIN
  LOCK TABLE ledger_closings IN ROW EXCLUSIVE MODE;
  SELECT closed_until INTO v_until FROM ledger_closings;
  IF v_until IS NULL OR v_day >= v_until THEN
    RETURN NULL;
  END IF;
  -- The entry's day gets a closing if it had none (the wallet's last one before it), then it and every later one
  -- grow by the entry.
  INSERT INTO ledger_day_closings (wallet_id, day, closing)
  VALUES (NEW.wallet_id, v_day,
          coalesce((SELECT c.closing FROM ledger_day_closings c
                     WHERE c.wallet_id = NEW.wallet_id AND c.day < v_day ORDER BY c.day DESC LIMIT 1), 0))
  ON CONFLICT (wallet_id, day) DO NOTHING;
  UPDATE ledger_day_closings SET closing = closing + NEW.amount WHERE wallet_id = NEW.wallet_id AND day >= v_day;
  INSERT INTO ledger_day_kind_totals (day, kind, total, on_platform)
  VALUES (v_day, NEW.kind, NEW.amount,
          EXISTS (SELECT 1 FROM wallets w
                   WHERE w.id = NEW.wallet_id AND w.platform_kind IN ('fees', 'gst', 'recovery')))
  ON CONFLICT (day, kind) DO UPDATE
    SET total = ledger_day_kind_totals.total + EXCLUDED.total,
        on_platform = ledger_day_kind_totals.on_platform OR EXCLUDED.on_platform;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_closing_backdated AFTER INSERT ON ledger_entries
  FOR EACH ROW WHEN (NEW.created_at < now()) EXECUTE FUNCTION ledger_closing_backdated();
