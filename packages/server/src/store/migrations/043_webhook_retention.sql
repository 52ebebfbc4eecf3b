-- Retention (issue 35): the worker removes delivered webhook deliveries, with their attempts, once they were delivered
-- more than PAYRAIL_RETENTION_DAYS ago, a thousand per transaction, oldest first (RetentionRepository). Each batch
-- finds its rows here, in the order it removes them: without it every batch would scan the whole table for the few
-- old delivered rows among the failed and pending ones it keeps, and a table of millions would be read once per
-- thousand rows removed. Delivered rows only: the pending and failed ones are never removed, and have indexes of
-- their own.
CREATE INDEX webhook_deliveries_delivered_by_time ON webhook_deliveries (delivered_at) WHERE state = 'delivered';
