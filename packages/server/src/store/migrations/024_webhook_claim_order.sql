-- Claiming webhook deliveries without reading the whole backlog each time (docs/internals/performance.md).
--
-- A delivery is claimed only when no earlier delivery of its transaction is still pending (per-transaction order).
-- Answered from the two indexes there were (by subject, and pending by due time), PostgreSQL combined them with a
-- BitmapAnd that read every pending delivery for every candidate: a claim over 2,000 pending deliveries took 127 ms,
-- and the drain benchmark spent half of the database's CPU there. This index answers it with one probe.
CREATE INDEX webhook_deliveries_pending_by_subject ON webhook_deliveries (subject_id, seq) WHERE state = 'pending';

-- And the claim itself, as a function so that it can carry its own planner settings. Without statistics that know
-- how many deliveries are due (a burst outruns ANALYZE, and on a database without autovacuum there are none), the
-- planner read every due delivery, checked each one's order, and sorted them all to keep 64: 27 ms for 2,500
-- pending, growing with the backlog. Walking the due-time index in order and stopping at the limit costs 2 ms
-- whatever the backlog; sorts and bitmap scans are switched off for this statement only, which leaves that plan.
CREATE FUNCTION webhook_deliveries_claim(p_limit int, p_lease_ms float8, p_owner text)
  RETURNS SETOF webhook_deliveries LANGUAGE sql
  SET enable_sort = off SET enable_bitmapscan = off
AS $$
  UPDATE webhook_deliveries SET locked_until = now() + make_interval(secs => p_lease_ms / 1000), lease_owner = p_owner
   WHERE id IN (
     SELECT d.id FROM webhook_deliveries d
      WHERE d.state = 'pending' AND d.next_attempt_at <= now()
        AND (d.locked_until IS NULL OR d.locked_until < now())
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.subject_id = d.subject_id AND e.seq < d.seq AND e.state = 'pending')
      ORDER BY d.next_attempt_at
      LIMIT p_limit
      FOR UPDATE SKIP LOCKED)
  RETURNING *
$$;
