-- The webhook claim's order check on a large database (issue 35, docs/internals/performance.md, "Flat at scale").
--
-- A delivery is claimed only when no earlier delivery of its transaction is still pending. Migration 024 answered
-- that with a probe of webhook_deliveries_pending_by_subject for each candidate. On a database whose statistics were
-- taken while hardly any delivery was pending (any large one: delivered deliveries are nearly all of the table, and
-- ANALYZE runs between bursts), the planner believes an index of pending deliveries holds about one row, so that
-- reading one whole for each candidate costs no more than the probe. It then chose that: a nested loop whose inner
-- side walked all of webhook_deliveries_due (every pending delivery, and the dead entries since the last vacuum) for
-- each of the claim's candidates. At 300,000 payouts a drain's claims took 117-164 ms each instead of 29 (4.4-16
-- million buffers for 230-257 claims), most of what the drain cost more than on an empty database.
--
-- The probe now names the earlier pending delivery as "neither delivered nor failed" (the same rows: the column's
-- CHECK allows three states). No partial index's predicate follows from that, so no index of pending deliveries can
-- answer it (a partial index made for this predicate was read whole the same way: small in the planner's eyes is
-- the trap). The only index with the subject is webhook_deliveries_by_subject (subject_id, seq), which the planner
-- knows to be as large as the table, so it probes it by subject and seq: each probe reads the transaction's few
-- earlier deliveries. test/store/flatAtScale.test.ts holds the plan.
CREATE OR REPLACE FUNCTION webhook_deliveries_claim(p_limit int, p_lease_ms float8, p_owner text)
  RETURNS SETOF webhook_deliveries LANGUAGE sql
  SET enable_sort = off SET enable_bitmapscan = off
AS $$
  UPDATE webhook_deliveries SET locked_until = now() + make_interval(secs => p_lease_ms / 1000), lease_owner = p_owner
   WHERE id IN (
     SELECT d.id FROM webhook_deliveries d
      WHERE d.state = 'pending' AND d.next_attempt_at <= now()
        AND (d.locked_until IS NULL OR d.locked_until < now())
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.subject_id = d.subject_id AND e.seq < d.seq
                           AND e.state NOT IN ('delivered', 'failed'))
      ORDER BY d.next_attempt_at
      LIMIT p_limit
      FOR UPDATE SKIP LOCKED)
  RETURNING *
$$;

-- Migration 024's index served that probe alone, and nothing reads it now: every delivery's insert kept it.
DROP INDEX IF EXISTS webhook_deliveries_pending_by_subject;
