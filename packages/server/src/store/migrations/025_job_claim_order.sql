-- Claiming jobs the way migration 024 claims webhook deliveries: walk the due-time index in order and stop at the
-- limit, whatever the planner's statistics say. Mid-drain, on a database that had not analyzed `jobs` since the burst
-- began, the claim combined `jobs_due` with the (kind, subject_id) index in a BitmapAnd that read 15,742 index
-- entries (dead ones included, until a vacuum) to find 323 due jobs, then sorted them: 3.7 ms, growing with the churn.
-- `p_kinds` NULL: every kind; otherwise only those kinds, or (`p_except`) every other kind.
CREATE FUNCTION jobs_claim(p_limit int, p_lease_ms float8, p_owner text, p_kinds text[], p_except boolean)
  RETURNS TABLE (id bigint, kind text, subject_id text, run_at timestamptz, attempts int, lease_owner text)
  LANGUAGE sql
  SET enable_sort = off SET enable_bitmapscan = off
AS $$
  UPDATE jobs AS j SET locked_until = now() + make_interval(secs => p_lease_ms / 1000), attempts = j.attempts + 1,
         lease_owner = p_owner
   WHERE j.id IN (
     SELECT d.id FROM jobs d
      WHERE d.run_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
        AND (p_kinds IS NULL OR (d.kind = ANY (p_kinds)) <> p_except)
      ORDER BY d.run_at
      LIMIT p_limit
      FOR UPDATE SKIP LOCKED)
  RETURNING j.id, j.kind, j.subject_id, j.run_at, j.attempts, j.lease_owner
$$;
