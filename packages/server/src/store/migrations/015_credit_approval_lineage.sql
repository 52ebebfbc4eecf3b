-- Maker ≠ checker for wallet credits, kept against the two ways round it:
--   * approving through an account the maker set up: every creation, promotion, re-enabling and password set of
--     an operator is a grant kept here (who, what, when), and an approval by an operator who is not independent
--     of the maker is refused by the database (SQLSTATE PR020);
--   * splitting a large credit into small ones: a direct credit names the operator whose session made it, so that
--     one operator's direct credits to one wallet can be summed over a rolling 24 h.

CREATE TABLE operator_grants (
  id            bigserial PRIMARY KEY,
  operator_id   text NOT NULL REFERENCES operators (id),
  -- unrecorded_change: an update made before grants were kept, whose kind is unknown (backfilled from the audit
  -- log); it may have set a password, so it counts as one.
  kind          text NOT NULL CHECK (kind IN ('create', 'promote', 're_enable', 'password', 'unrecorded_change')),
  -- The actor as the audit log names it: an operator's e-mail address or `operator:admin-token`.
  granted_by    text NOT NULL,
  -- The granting operator; null for the admin token (automation, which credits directly anyway).
  granted_by_id text REFERENCES operators (id),
  at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_grants_by_operator ON operator_grants (operator_id);

-- Lineage that could be erased would protect nothing.
CREATE FUNCTION operator_grants_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operator grants are append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER operator_grants_append_only BEFORE UPDATE OR DELETE ON operator_grants
  FOR EACH ROW EXECUTE FUNCTION operator_grants_append_only();

-- Operators created before this migration: their creator, as operators.created_by recorded it.
INSERT INTO operator_grants (operator_id, kind, granted_by, granted_by_id, at)
  SELECT o.id, 'create', o.created_by, g.id, o.created_at
    FROM operators o LEFT JOIN operators g ON lower(g.email) = lower(o.created_by);
-- Their later changes by other operators, as the audit log recorded them (its target is the operator's id).
INSERT INTO operator_grants (operator_id, kind, granted_by, granted_by_id, at)
  SELECT o.id, 'unrecorded_change', a.actor, g.id, a.at
    FROM audit_log a
    JOIN operators o ON o.id = a.target
    JOIN operators g ON lower(g.email) = lower(a.actor)
   WHERE a.action = 'operator.update' AND a.outcome = 'ok';

-- True when the checker may approve the maker's credit (both operator ids). Not independent when
--   * the maker is in the checker's lineage: the checker's account, role or password came from the maker,
--     directly or through other operators (A created B who created C: C does not approve A); or
--   * one operator holds, or held, the passwords of both: each side together with whoever created it or set its
--     password, transitively, and the two sets meet. This covers the maker approving through an account they set
--     up, the checker having set up the maker's account (they could have asked as it), and two accounts set up by
--     a third. A promotion or re-enabling hands out no password, so two operators one admin only promoted stay
--     independent of each other.
-- The admin token is nobody's lineage: it credits directly at any amount, so holding two accounts gains it nothing.
CREATE FUNCTION operators_independent(p_maker text, p_checker text) RETURNS boolean LANGUAGE sql STABLE AS $$
  WITH RECURSIVE
    lineage(id) AS (
      SELECT granted_by_id FROM operator_grants WHERE operator_id = p_checker AND granted_by_id IS NOT NULL
      UNION
      SELECT g.granted_by_id FROM operator_grants g JOIN lineage l ON g.operator_id = l.id
       WHERE g.granted_by_id IS NOT NULL
    ),
    holders(side, id) AS (
      SELECT 'maker'::text, p_maker
      UNION
      SELECT 'checker'::text, p_checker
      UNION
      SELECT h.side, g.granted_by_id FROM operator_grants g JOIN holders h ON g.operator_id = h.id
       WHERE g.granted_by_id IS NOT NULL AND g.kind IN ('create', 'password', 'unrecorded_change')
    )
  SELECT NOT EXISTS (SELECT 1 FROM lineage WHERE id = p_maker)
     AND NOT EXISTS (SELECT 1 FROM holders m JOIN holders c ON c.id = m.id
                      WHERE m.side = 'maker' AND c.side = 'checker')
$$;

-- Checked in the statement that approves, whoever issues it: the application maps PR020 to 403 lineage_conflict.
CREATE FUNCTION credit_request_checker_independent() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_maker text;
  v_checker text;
BEGIN
  SELECT id INTO v_maker FROM operators WHERE lower(email) = lower(NEW.requested_by);
  SELECT id INTO v_checker FROM operators WHERE lower(email) = lower(NEW.decided_by);
  IF v_maker IS NOT NULL AND v_checker IS NOT NULL AND NOT operators_independent(v_maker, v_checker) THEN
    RAISE EXCEPTION '% is not independent of %, who requested this credit', NEW.decided_by, NEW.requested_by
      USING ERRCODE = 'PR020';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER credit_request_checker_independent BEFORE INSERT OR UPDATE ON credit_requests
  FOR EACH ROW WHEN (NEW.status = 'approved') EXECUTE FUNCTION credit_request_checker_independent();

-- The operator whose console session credited directly (no second operator); null for the admin token, for an
-- approved request's credit and for every other kind of entry.
ALTER TABLE ledger_entries ADD COLUMN credited_by text REFERENCES operators (id);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_credited_by_credit CHECK (credited_by IS NULL OR kind = 'credit');
CREATE INDEX ledger_direct_credits ON ledger_entries (wallet_id, credited_by, created_at)
  WHERE credited_by IS NOT NULL;
