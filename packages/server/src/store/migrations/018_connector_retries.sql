-- Temporary refusals by a connector (the upstream's account short, its service down, a timeout): the payout stays
-- INITIATED and is submitted again with backoff until the connector's retry period, counted from the first such
-- refusal, has passed. `rail_retry_since` marks a payout that waits this way (its rail_error says why), so that the
-- next submission may be claimed although rail_error is set; `submit_answers` counts the submissions whose answer
-- was recorded, so that `submit_attempts - submit_answers` is the number of submissions whose answer was lost.
ALTER TABLE payouts
  ADD COLUMN rail_retry_since timestamptz,
  ADD COLUMN submit_answers integer NOT NULL DEFAULT 0 CHECK (submit_answers >= 0);

-- A rail reference is looked up when a notification brings one (is it another payout's?): without an index each
-- such check reads the whole table.
CREATE INDEX payouts_by_rail_reference ON payouts (rail_reference) WHERE rail_reference IS NOT NULL;
