-- Refusals of clients that nothing else bounds (wrong admin bearer tokens, sign-ins refused by the throttle or as
-- cross-origin, ...) are audited as one row per kind of refusal, client address and minute, with a count, so
-- that a flood of them cannot grow the log by one row per request.

ALTER TABLE audit_log
  ADD COLUMN count integer NOT NULL DEFAULT 1 CHECK (count >= 1),
  -- The minute a counted row stands for; null for the rows of one event each.
  ADD COLUMN minute timestamptz;

-- The key of a counted row. The detail is part of it so that different refusals stay apart; it only ever holds
-- words of the server's (route patterns and reasons), never a value the client chose, so the key stays bounded.
CREATE UNIQUE INDEX audit_log_counted ON audit_log (action, http_status, client_address, detail, minute)
  WHERE minute IS NOT NULL;

-- Still append-only: the one change allowed is a counted row's count growing, every other column as written.
CREATE OR REPLACE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.minute IS NOT NULL AND NEW.count > OLD.count
     AND to_jsonb(NEW) - 'count' = to_jsonb(OLD) - 'count' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
