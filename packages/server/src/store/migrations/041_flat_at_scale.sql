-- IF NOT EXISTS: a large installation may build these first with CREATE INDEX CONCURRENTLY under the same names, so
-- that the migration's transaction does not hold writes for the build (docs/internals/performance.md).
--
-- Issue 35, "flat at scale": the reads operators make every day follow an index to the rows they show, so their cost
-- stays with what they answer, not with the size of the tables (docs/internals/performance.md, "Flat at scale").
--
-- Payouts get no new index: their ids are time-ordered ULIDs (the time part is the creation's clock reading, the
-- same one as created_at), so the primary key is already "payouts by time" and payouts_by_merchant (merchant_id, id)
-- "payouts by merchant and time". The repository turns a created_at window into id bounds over them
-- (store/createdRangeWhere.ts). Two more indexes on the table every initiation inserts into would cost each of them.

-- The console's first list (deliveries that gave up, newest first) and the overview's backlog counts read only
-- deliveries that are not delivered: a few against the millions that are. The partial index of migration 002
-- covers pending ones by due time, which neither read can use.
CREATE INDEX IF NOT EXISTS webhook_deliveries_unsettled ON webhook_deliveries (state, seq) WHERE state IN ('pending', 'failed');
CREATE INDEX IF NOT EXISTS webhook_deliveries_unsettled_by_merchant ON webhook_deliveries (merchant_id, state, seq)
  WHERE state IN ('pending', 'failed');

-- A wallet statement reads a range of a wallet's entries by time and the sum of those before it (the opening
-- balance). ledger_by_wallet is (wallet_id, id), which has no time; with the amount included, the opening balance is
-- an index-only read of the wallet's earlier entries, never the table.
CREATE INDEX IF NOT EXISTS ledger_by_wallet_time ON ledger_entries (wallet_id, created_at) INCLUDE (amount);
