-- Collections (UPI) and their lifecycle guard.

CREATE TABLE collections (
  id             text PRIMARY KEY,
  merchant_id    text NOT NULL REFERENCES merchants (id),
  wallet_id      text NOT NULL REFERENCES wallets (id),
  sender_id      text NOT NULL,
  amount         bigint NOT NULL CHECK (amount > 0),
  remarks        text NOT NULL DEFAULT '',
  payment_mode   text NOT NULL CHECK (payment_mode IN ('Intent', 'Collect')),
  payer_vpa      text NOT NULL DEFAULT '',
  callback_url   text,
  scheme         text NOT NULL CHECK (scheme IN ('v1', 'v2')),
  status         text NOT NULL DEFAULT 'INITIATED' CHECK (status IN ('INITIATED', 'PENDING', 'SUCCESS', 'FAILED')),
  status_message text NOT NULL DEFAULT '',
  utr            text NOT NULL DEFAULT '',
  expires_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  UNIQUE (merchant_id, sender_id)
);
CREATE INDEX collections_by_merchant ON collections (merchant_id, id);
CREATE INDEX collections_by_status ON collections (status, id);

CREATE FUNCTION collection_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'INITIATED' THEN
      RAISE EXCEPTION 'a collection starts INITIATED' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.merchant_id <> OLD.merchant_id OR NEW.wallet_id <> OLD.wallet_id OR NEW.amount <> OLD.amount
     OR NEW.sender_id <> OLD.sender_id THEN
    RAISE EXCEPTION 'collection % is immutable but for its status', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND (OLD.status, NEW.status) NOT IN (
       ('INITIATED', 'PENDING'), ('INITIATED', 'SUCCESS'), ('INITIATED', 'FAILED'),
       ('PENDING', 'SUCCESS'), ('PENDING', 'FAILED')) THEN
    RAISE EXCEPTION 'illegal collection transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status = 'SUCCESS' AND OLD.status <> 'SUCCESS' AND NOT EXISTS (
       SELECT 1 FROM ledger_entries WHERE collection_id = NEW.id) THEN
    RAISE EXCEPTION 'collection % is SUCCESS only after its credit entry', NEW.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER collection_guard BEFORE INSERT OR UPDATE ON collections
  FOR EACH ROW EXECUTE FUNCTION collection_guard();
