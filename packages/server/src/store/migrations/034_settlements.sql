-- Settlements (docs/operator/settlements.md): a merchant's collections paid out to the merchant's own bank account.
-- A settlement is an ordinary payout (sender_id = the settlement id) through the connector its mode routes to, so
-- every rail, return, exception and reconciliation rule applies; this migration adds what it covers and when it runs.

-- The merchant's settlement account and schedule. One per merchant; changed in place (the audit log keeps the past).
CREATE TABLE settlement_accounts (
  merchant_id    text PRIMARY KEY REFERENCES merchants (id),
  account_number text NOT NULL CHECK (account_number ~ '^[0-9A-Za-z]{1,34}$'),
  ifsc           text NOT NULL CHECK (ifsc ~ '^[A-Z]{4}0[A-Z0-9]{6}$'),
  holder_name    text NOT NULL CHECK (length(holder_name) BETWEEN 1 AND 140),
  bank_name      text NOT NULL DEFAULT '',
  schedule       text NOT NULL CHECK (schedule IN ('manual', 'daily', 'instant')),
  -- daily: the IST minute of the day the run starts (660 = 11:00).
  at_minute      int CHECK (at_minute BETWEEN 0 AND 1439),
  -- Basis points of the collections of the last reserve_days days that stay in the wallet.
  reserve_bp     int NOT NULL DEFAULT 0 CHECK (reserve_bp BETWEEN 0 AND 10000),
  reserve_days   int NOT NULL DEFAULT 0 CHECK (reserve_days BETWEEN 0 AND 365),
  -- Settlements wait until then: the first account at once, a changed one 24 hours later (account takeover).
  active_from    timestamptz NOT NULL,
  -- The IST day (YYYY-MM-DD) whose daily run has settled this merchant: a day runs once, on any number of instances.
  last_run_day   text,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  CHECK ((schedule = 'daily') = (at_minute IS NOT NULL))
);
CREATE INDEX settlement_accounts_scheduled ON settlement_accounts (schedule) WHERE schedule <> 'manual';

CREATE TABLE settlements (
  -- ST + ULID.
  id          text PRIMARY KEY CHECK (id ~ '^ST[0-9A-HJKMNP-TV-Z]{26}$'),
  merchant_id text NOT NULL REFERENCES merchants (id),
  wallet_id   text NOT NULL REFERENCES wallets (id),
  -- Paise paid out; the fees and GST of the collections it covers (charged when they were credited, not again).
  amount      bigint NOT NULL CHECK (amount > 0),
  fees        bigint NOT NULL DEFAULT 0 CHECK (fees >= 0),
  tax         bigint NOT NULL DEFAULT 0 CHECK (tax >= 0),
  -- The payout's status, followed by the trigger below.
  state       text NOT NULL CHECK (state IN ('INITIATED', 'PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'REFUNDED')),
  payout_id   text NOT NULL UNIQUE,
  -- manual (the merchant's or an operator's request), daily, instant.
  trigger     text NOT NULL CHECK (trigger IN ('manual', 'daily', 'instant')),
  -- Collections credited before this instant were in its window.
  window_end  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);
CREATE INDEX settlements_by_merchant ON settlements (merchant_id, created_at, id);
CREATE INDEX settlements_by_wallet ON settlements (wallet_id, id);

-- What a settlement covers: per collection, the part of its net (amount − fee − GST) it pays out. Items are written
-- only by settlement_open_many, with their settlement and from the settleable rows it read, and never changed: no
-- foreign keys (a check per item cost half of a daily run of 100,000 collections).
CREATE TABLE settlement_items (
  settlement_id text NOT NULL,
  collection_id text NOT NULL,
  -- The collection's amount; its fee and GST on the settlement that carries them (the first to cover the collection,
  -- or the next one when that settlement is refunded), 0 on a later part.
  amount        bigint NOT NULL CHECK (amount > 0),
  fee           bigint NOT NULL CHECK (fee >= 0),
  tax           bigint NOT NULL CHECK (tax >= 0),
  net           bigint NOT NULL CHECK (net > 0),
  PRIMARY KEY (settlement_id, collection_id)
);
CREATE INDEX settlement_items_by_collection ON settlement_items (collection_id);

-- A settlement's payout names it; the payout's status changes move the settlement (trigger below).
ALTER TABLE payouts ADD COLUMN settlement_id text UNIQUE REFERENCES settlements (id);

-- When a collection was credited (its SUCCESS): the caller's clock (CollectionRepository.transition's updated_at),
-- the clock settlement windows are computed with. Collections credited before this migration keep NULL.
ALTER TABLE collections ADD COLUMN credited_at timestamptz;
UPDATE collections c SET credited_at = l.created_at
  FROM ledger_entries l
 WHERE l.collection_id = c.id AND l.kind = 'collection_credit' AND c.status = 'SUCCESS';
-- The reserve sums a wallet's recent collections.
CREATE INDEX collections_credited ON collections (wallet_id, credited_at) WHERE status = 'SUCCESS';

CREATE FUNCTION collection_credited_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.credited_at := NEW.updated_at;
  RETURN NEW;
END $$;
CREATE TRIGGER collection_credited_at BEFORE UPDATE OF status ON collections FOR EACH ROW
  WHEN (NEW.status = 'SUCCESS' AND OLD.status <> 'SUCCESS') EXECUTE FUNCTION collection_credited_at();

-- What settlements can still take: one narrow row per credited collection whose net is not covered yet (a daily run
-- deletes what it covers instead of updating wide collection rows and all their indexes). A collection's SUCCESS adds
-- its row; a settlement takes the part it covers (deletes the row, or lowers `rest` and gives the fee and GST to its
-- own item); a REFUNDED settlement gives its items back. So for every credited collection, `rest` plus the net of
-- its items on settlements not REFUNDED is its net. Collections credited before this migration are not here: a
-- deployment's history is not settled at once on upgrade.
CREATE TABLE settleable_collections (
  collection_id text PRIMARY KEY,
  wallet_id     text NOT NULL,
  credited_at   timestamptz NOT NULL,
  amount        bigint NOT NULL CHECK (amount > 0),
  -- The fee and GST no settlement item carries yet.
  fee           bigint NOT NULL CHECK (fee >= 0),
  tax           bigint NOT NULL CHECK (tax >= 0),
  rest          bigint NOT NULL CHECK (rest > 0)
);
CREATE INDEX settleable_by_wallet ON settleable_collections (wallet_id, credited_at, collection_id);

-- After the credit: the status UPDATE comes after collection_credit's ledger entries and fee (so after the wallet's
-- lock; a settleable row is always written after its wallet is locked, by a credit, a settlement or a refund).
CREATE FUNCTION collection_settleable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.amount - NEW.fee - NEW.tax > 0 THEN
    INSERT INTO settleable_collections (collection_id, wallet_id, credited_at, amount, fee, tax, rest)
      VALUES (NEW.id, NEW.wallet_id, NEW.credited_at, NEW.amount, NEW.fee, NEW.tax, NEW.amount - NEW.fee - NEW.tax);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER collection_settleable AFTER UPDATE OF status ON collections FOR EACH ROW
  WHEN (NEW.status = 'SUCCESS' AND OLD.status <> 'SUCCESS') EXECUTE FUNCTION collection_settleable();

-- A settlement's state is its payout's. REFUNDED (a failure refunded, or a return) puts the money back in the wallet
-- (the payout's refund entry, so after the wallet's lock) and its collections become settleable again.
CREATE FUNCTION settlement_follow_payout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE settlements SET state = NEW.status, updated_at = NEW.updated_at WHERE id = NEW.settlement_id;
  IF NEW.status = 'REFUNDED' THEN
    INSERT INTO settleable_collections (collection_id, wallet_id, credited_at, amount, fee, tax, rest)
      SELECT i.collection_id, c.wallet_id, c.credited_at, i.amount, i.fee, i.tax, i.net
        FROM settlement_items i JOIN collections c ON c.id = i.collection_id
       WHERE i.settlement_id = NEW.settlement_id
       ORDER BY i.collection_id
    ON CONFLICT (collection_id) DO UPDATE
      SET rest = settleable_collections.rest + EXCLUDED.rest, fee = settleable_collections.fee + EXCLUDED.fee,
          tax = settleable_collections.tax + EXCLUDED.tax;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER settlement_follow_payout AFTER UPDATE OF status ON payouts FOR EACH ROW
  WHEN (NEW.settlement_id IS NOT NULL AND NEW.status IS DISTINCT FROM OLD.status)
  EXECUTE FUNCTION settlement_follow_payout();

-- Opens the settlements of many wallets at once, set-based (a daily run: a handful of statements for any number of
-- wallets and collections). Arrays are aligned, one element per wallet (each wallet at most once): the new
-- settlement's and payout's ids, and a cap (NULL: everything settleable; else exactly that amount, refused when
-- more than can be settled). For each wallet:
--   settleable = least(what its collections credited before p_window_end still have to settle (`rest`),
--                      balance − liens − reserve)
-- where the reserve is reserve_bp of the net of the collections credited in the last reserve_days days (rounded up:
-- the reserve never holds less than its percentage). Refusals, per wallet: 'no_account' (none, or a changed one
-- still in its 24 hours), 'nothing' (nothing settleable, or less than the cap). Each accepted wallet gets a
-- settlement, its payout (IMPS up to p_imps_max, else NEFT; not priced; outside the allowances, which limit what a
-- merchant sends to others) with its debit and first step, and the items it covers in credit order (the last one in
-- part when the amount runs out).
CREATE FUNCTION settlement_open_many(
  p_wallets text[], p_ids text[], p_payout_ids text[], p_caps int8[], p_trigger text, p_window_end timestamptz,
  p_at timestamptz, p_day text, p_month text, p_message text, p_imps_max int8,
  p_rail_imps text, p_rail_neft text, p_delay_imps_ms float8, p_delay_neft_ms float8
) RETURNS TABLE (r_wallet text, r_settlement text, r_amount int8, r_refusal text) LANGUAGE plpgsql
  -- Its statements are many small index reads: compiling them (JIT, PostgreSQL's estimate of a large run) costs more
  -- than it saves.
  SET jit = off AS $$
DECLARE
  -- The decisions, one element per wallet in wallet order, and the items (arrays rather than temporary tables: no
  -- catalog churn).
  v_wallet text[];
  v_id text[];
  v_payout text[];
  v_merchant text[];
  v_amount int8[];
  v_refusal text[];
  v_i_settlement text[];
  v_i_collection text[];
  v_i_amount int8[];
  v_i_fee int8[];
  v_i_tax int8[];
  v_i_net int8[];
  v_i_rest int8[];
BEGIN
  -- 2. of the lock order: the wallets, in id order. Everything after reads in statements of its own, so it sees
  -- what committed while this waited (an earlier settlement of the same wallet, a lien, a new credit).
  PERFORM 1 FROM wallets w WHERE w.id = ANY (p_wallets) ORDER BY w.id FOR NO KEY UPDATE;

  SELECT array_agg(x.wallet ORDER BY x.wallet), array_agg(x.id ORDER BY x.wallet), array_agg(x.pid ORDER BY x.wallet),
         array_agg(x.merchant ORDER BY x.wallet), array_agg(x.amount ORDER BY x.wallet),
         array_agg(x.refusal ORDER BY x.wallet)
    INTO v_wallet, v_id, v_payout, v_merchant, v_amount, v_refusal
    FROM (
      SELECT r.wallet, r.id, r.pid, w.merchant_id AS merchant,
             CASE WHEN r.cap IS NULL THEN s.settleable ELSE r.cap END AS amount,
             CASE WHEN a.merchant_id IS NULL OR a.active_from > p_at THEN 'no_account'
                  WHEN s.settleable <= 0 OR (r.cap IS NOT NULL AND r.cap > s.settleable) THEN 'nothing' END AS refusal
        FROM unnest(p_wallets, p_ids, p_payout_ids, p_caps) AS r (wallet, id, pid, cap)
        JOIN wallets w ON w.id = r.wallet
        LEFT JOIN settlement_accounts a ON a.merchant_id = w.merchant_id
        CROSS JOIN LATERAL (
          SELECT least(
            (SELECT coalesce(sum(q.rest), 0)::int8 FROM settleable_collections q
              WHERE q.wallet_id = r.wallet AND q.credited_at < p_window_end),
            w.balance - wallet_on_lien(r.wallet, p_at)
              - CASE WHEN coalesce(a.reserve_bp, 0) = 0 OR a.reserve_days = 0 THEN 0 ELSE
                  (SELECT ((coalesce(sum(c.amount - c.fee - c.tax), 0) * a.reserve_bp + 9999) / 10000)::int8
                     FROM collections c
                    WHERE c.wallet_id = r.wallet AND c.status = 'SUCCESS'
                      AND c.credited_at > p_at - make_interval(days => a.reserve_days)) END
          ) AS settleable
        ) s
    ) x;

  -- Items: each accepted wallet's settleable collections in credit order, while the running total is under the
  -- amount; the last one in part.
  SELECT array_agg(i.sid), array_agg(i.cid), array_agg(i.amount), array_agg(i.fee), array_agg(i.tax),
         array_agg(i.net), array_agg(i.rest)
    INTO v_i_settlement, v_i_collection, v_i_amount, v_i_fee, v_i_tax, v_i_net, v_i_rest
    FROM (
      SELECT d.id AS sid, q.collection_id AS cid, q.amount, q.fee, q.tax, q.rest,
             least(q.rest, d.amount - (q.run - q.rest)) AS net
        FROM unnest(v_wallet, v_id, v_amount, v_refusal) AS d (wallet, id, amount, refusal)
        CROSS JOIN LATERAL (
          SELECT q.collection_id, q.amount, q.fee, q.tax, q.rest,
                 sum(q.rest) OVER (ORDER BY q.credited_at, q.collection_id) AS run
            FROM settleable_collections q
           WHERE q.wallet_id = d.wallet AND q.credited_at < p_window_end
        ) q
       WHERE d.refusal IS NULL AND q.run - q.rest < d.amount
    ) i;
  IF v_i_settlement IS NULL THEN
    RETURN QUERY SELECT d.wallet, d.id, d.amount, coalesce(d.refusal, 'nothing')
      FROM unnest(v_wallet, v_id, v_amount, v_refusal) AS d (wallet, id, amount, refusal);
    RETURN;
  END IF;

  INSERT INTO settlements (id, merchant_id, wallet_id, amount, fees, tax, state, payout_id, trigger, window_end,
      created_at, updated_at)
    SELECT d.id, d.merchant, d.wallet, d.amount, coalesce(f.fees, 0), coalesce(f.tax, 0), 'INITIATED', d.pid,
           p_trigger, p_window_end, p_at, p_at
      FROM unnest(v_wallet, v_id, v_payout, v_merchant, v_amount, v_refusal)
           AS d (wallet, id, pid, merchant, amount, refusal)
      LEFT JOIN (SELECT t.sid, sum(t.fee)::int8 AS fees, sum(t.tax)::int8 AS tax
                   FROM unnest(v_i_settlement, v_i_fee, v_i_tax) AS t (sid, fee, tax) GROUP BY t.sid) f
        ON f.sid = d.id
     WHERE d.refusal IS NULL;
  INSERT INTO settlement_items (settlement_id, collection_id, amount, fee, tax, net)
    SELECT * FROM unnest(v_i_settlement, v_i_collection, v_i_amount, v_i_fee, v_i_tax, v_i_net);
  -- What they covered leaves the settleable rows: whole, or the rest of a collection covered in part (its fee and
  -- GST now on this settlement's item).
  DELETE FROM settleable_collections q
   USING unnest(v_i_collection, v_i_net, v_i_rest) AS t (cid, net, rest)
   WHERE q.collection_id = t.cid AND t.net = t.rest;
  UPDATE settleable_collections q SET rest = q.rest - t.net, fee = 0, tax = 0
    FROM unnest(v_i_collection, v_i_net, v_i_rest) AS t (cid, net, rest)
   WHERE q.collection_id = t.cid AND t.net < t.rest;

  INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
      beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
      utr, rail, ist_day, ist_month, created_at, updated_at, fee, tax, settlement_id)
    SELECT d.pid, d.merchant, d.wallet, d.id, d.amount,
           CASE WHEN d.amount <= p_imps_max THEN 'IMPS' ELSE 'NEFT' END,
           a.holder_name, a.account_number, a.ifsc, a.bank_name, 'Settlement ' || d.id, NULL,
           m.default_scheme, 'INITIATED', p_message, '',
           CASE WHEN d.amount <= p_imps_max THEN p_rail_imps ELSE p_rail_neft END,
           p_day, p_month, p_at, p_at, 0, 0, d.id
      FROM unnest(v_wallet, v_id, v_payout, v_merchant, v_amount, v_refusal)
           AS d (wallet, id, pid, merchant, amount, refusal)
      JOIN settlement_accounts a ON a.merchant_id = d.merchant
      JOIN merchants m ON m.id = d.merchant
     WHERE d.refusal IS NULL;
  INSERT INTO jobs (kind, subject_id, run_at)
    SELECT 'payout.advance', d.pid,
           now() + make_interval(secs => (CASE WHEN d.amount <= p_imps_max THEN p_delay_imps_ms
                                               ELSE p_delay_neft_ms END) / 1000)
      FROM unnest(v_payout, v_amount, v_refusal) AS d (pid, amount, refusal) WHERE d.refusal IS NULL;
  -- The ledger trigger applies each debit to its wallet (locked above); its CHECK (balance >= 0) stays the last word.
  -- The settlement is named on its line of the wallet's statement (`reference`).
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, reference)
    SELECT d.wallet, 'payout_debit', -d.amount, 0, d.pid, d.id
      FROM unnest(v_wallet, v_payout, v_id, v_amount, v_refusal) WITH ORDINALITY AS d (wallet, pid, id, amount, refusal, o)
     WHERE d.refusal IS NULL ORDER BY d.o;

  RETURN QUERY SELECT d.wallet, d.id, d.amount, d.refusal
    FROM unnest(v_wallet, v_id, v_amount, v_refusal) AS d (wallet, id, amount, refusal);
END $$;
