-- When a merchant's credentials or status last changed. Every instance keeps the V1 key material of every
-- merchant in memory (the headerless V1 token lookup) and refreshes it incrementally from this column, so that
-- a merchant created, rotated or suspended through one instance is seen by the others.
ALTER TABLE merchants ADD COLUMN keys_changed_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX merchants_by_keys_changed ON merchants (keys_changed_at);

CREATE FUNCTION merchant_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.keys_changed_at := now();
  RETURN NEW;
END $$;

-- A trigger rather than each UPDATE statement: no writer can forget it.
CREATE TRIGGER merchant_keys_changed BEFORE UPDATE ON merchants FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.credentials_version IS DISTINCT FROM NEW.credentials_version)
  EXECUTE FUNCTION merchant_keys_changed();
