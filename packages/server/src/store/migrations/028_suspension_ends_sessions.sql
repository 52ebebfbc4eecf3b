-- A suspension ends every token and console session of the merchant issued before it, for good: reactivating the
-- merchant does not bring them back (contract §18, issue 28). Tokens carry the merchant's credentials version
-- (claim `cv`) and merchant console sessions record it; every check (the token check, the initiation statement
-- payout_open_checked of 013, the bulk batch, the console) requires it to be the merchant's current one. So a
-- suspension advances it, as a rotation does (the keys stay the same).
--
-- A version rather than a suspension time: the order is the database's (a token signed from a row read before the
-- suspension committed carries the old version, whenever it is signed), not that of `iat`, which has whole seconds
-- and comes from the clock of whichever instance issued the token.
--
-- A trigger rather than each UPDATE statement: no writer can forget it. Only the change to 'suspended' counts: no
-- token or session can be issued while the merchant is suspended.
CREATE FUNCTION merchant_suspension_ends_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Past both: a statement that also writes the version (a rotation's step) still ends up with a new one.
  NEW.credentials_version := GREATEST(OLD.credentials_version, NEW.credentials_version) + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER merchant_suspension_ends_sessions BEFORE UPDATE ON merchants FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status = 'suspended')
  EXECUTE FUNCTION merchant_suspension_ends_sessions();

COMMENT ON COLUMN merchants.credentials_version IS
  'Advanced by every credentials rotation and every suspension (migration 028): tokens and merchant console '
  'sessions carry it, so either ends those issued before it.';

-- Merchants suspended now may hold tokens and sessions from before their suspension, still within their lifetime.
UPDATE merchants SET credentials_version = credentials_version + 1 WHERE status = 'suspended';
