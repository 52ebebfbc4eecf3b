-- Safe bank connectors and the history of every transaction (docs/internals/connector-interface.md,
-- docs/operator/operations.md).

-- A submission is recorded before the connector is called (submitted_at, submit_attempts), so that a step run
-- again never submits again unless the previous answer was lost in a crash. rail_error: the last answer of the
-- connector that the transition table refused (or that was not an answer at all), for the operator.
-- failure_reason: why the payout failed, kept when it goes on to REFUNDED.
ALTER TABLE payouts
  ADD COLUMN submitted_at    timestamptz,
  ADD COLUMN submit_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN rail_error      text,
  ADD COLUMN failure_reason  text;

-- One row per status change (and per recorded connector error). The creation is not stored here: the timeline
-- derives it from the transaction's own created_at, which keeps initiation at the cost it had.
CREATE TABLE transaction_events (
  id          bigserial PRIMARY KEY,
  subject_id  text NOT NULL,
  type        text NOT NULL CHECK (type IN ('status', 'error')),
  from_status text,
  to_status   text,
  reason      text NOT NULL DEFAULT '',
  actor       text NOT NULL,
  at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX transaction_events_by_subject ON transaction_events (subject_id, id);

-- Written by the database in the same transaction as the change, so no code path can forget it. The actor comes
-- from the transaction-local setting payrail.actor (set_config(..., true)), the reason from payrail.reason or
-- else the new status message; a change made without them is the 'system''s.
CREATE FUNCTION transaction_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_events (subject_id, type, from_status, to_status, reason, actor)
  VALUES (NEW.id, 'status', OLD.status, NEW.status,
          coalesce(nullif(current_setting('payrail.reason', true), ''), NEW.status_message),
          coalesce(nullif(current_setting('payrail.actor', true), ''), 'system'));
  RETURN NULL;
END $$;
CREATE TRIGGER payout_status_event AFTER UPDATE OF status ON payouts
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION transaction_status_event();
CREATE TRIGGER collection_status_event AFTER UPDATE OF status ON collections
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION transaction_status_event();
