-- Payouts, per-merchant allowance counters, the durable job outbox and webhook deliveries.

CREATE TABLE payouts (
  id                  text PRIMARY KEY,
  merchant_id         text NOT NULL REFERENCES merchants (id),
  wallet_id           text NOT NULL REFERENCES wallets (id),
  sender_id           text NOT NULL,
  amount              bigint NOT NULL CHECK (amount > 0),
  payment_mode        text NOT NULL CHECK (payment_mode IN ('IMPS', 'NEFT', 'RTGS')),
  beneficiary_name    text NOT NULL,
  beneficiary_account text NOT NULL,
  beneficiary_ifsc    text NOT NULL,
  bank_name           text NOT NULL DEFAULT '',
  remarks             text NOT NULL DEFAULT '',
  callback_url        text,
  scheme              text NOT NULL CHECK (scheme IN ('v1', 'v2')),
  status              text NOT NULL DEFAULT 'INITIATED'
                      CHECK (status IN ('INITIATED', 'PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'REFUNDED')),
  status_message      text NOT NULL DEFAULT '',
  utr                 text NOT NULL DEFAULT '',
  rail                text NOT NULL,
  rail_reference      text,
  -- India Standard Time calendar day and month of creation, for the allowances.
  ist_day             text NOT NULL,
  ist_month           text NOT NULL,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  UNIQUE (merchant_id, sender_id)
);
CREATE INDEX payouts_by_merchant ON payouts (merchant_id, id);
CREATE INDEX payouts_by_status ON payouts (status, id);
CREATE INDEX payouts_open_by_wallet ON payouts (wallet_id) WHERE status IN ('INITIATED', 'PROCESSING', 'PENDING');

-- The provider interface's transition table (docs/merchant/provider-interface.md), enforced by the database: no
-- code path can skip or reverse a state, and a payout can only be REFUNDED once its refund is in the ledger.
CREATE FUNCTION payout_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'INITIATED' THEN
      RAISE EXCEPTION 'a payout starts INITIATED' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.merchant_id <> OLD.merchant_id OR NEW.wallet_id <> OLD.wallet_id OR NEW.sender_id <> OLD.sender_id
     OR NEW.amount <> OLD.amount OR NEW.scheme <> OLD.scheme THEN
    RAISE EXCEPTION 'payout % is immutable but for its status', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND (OLD.status, NEW.status) NOT IN (
       ('INITIATED', 'PROCESSING'), ('PROCESSING', 'SUCCESS'), ('PROCESSING', 'FAILED'), ('PROCESSING', 'PENDING'),
       ('PENDING', 'SUCCESS'), ('PENDING', 'FAILED'), ('FAILED', 'REFUNDED')) THEN
    RAISE EXCEPTION 'illegal payout transition % -> %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status = 'REFUNDED' AND OLD.status <> 'REFUNDED' AND NOT EXISTS (
       SELECT 1 FROM ledger_entries WHERE payout_id = NEW.id AND kind = 'payout_refund') THEN
    RAISE EXCEPTION 'payout % is REFUNDED only after its refund entry', NEW.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER payout_guard BEFORE INSERT OR UPDATE ON payouts FOR EACH ROW EXECUTE FUNCTION payout_guard();

-- Running totals of the payouts that count against the allowances (not FAILED or REFUNDED), per IST period.
CREATE TABLE merchant_usage (
  merchant_id text NOT NULL REFERENCES merchants (id),
  period      text NOT NULL,
  amount      bigint NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (merchant_id, period)
);

-- Durable outbox of background steps; a job is deleted in the same transaction as the effect it causes.
CREATE TABLE jobs (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,
  subject_id   text NOT NULL,
  run_at       timestamptz NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, subject_id)
);
CREATE INDEX jobs_due ON jobs (run_at);

CREATE TABLE webhook_deliveries (
  id              text PRIMARY KEY,
  seq             bigserial UNIQUE,
  merchant_id     text NOT NULL REFERENCES merchants (id),
  subject_id      text NOT NULL,
  type            text NOT NULL,
  url             text NOT NULL,
  scheme          text NOT NULL CHECK (scheme IN ('v1', 'v2')),
  -- The transaction object as it was when the event happened; encrypted at send time with the current keys.
  snapshot        text NOT NULL,
  state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  locked_until    timestamptz,
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL,
  delivered_at    timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_subject ON webhook_deliveries (subject_id, seq);
CREATE INDEX webhook_deliveries_by_merchant ON webhook_deliveries (merchant_id, seq);

CREATE TABLE webhook_attempts (
  id           bigserial PRIMARY KEY,
  delivery_id  text NOT NULL REFERENCES webhook_deliveries (id),
  attempted_at timestamptz NOT NULL DEFAULT now(),
  duration_ms  integer NOT NULL,
  http_status  integer,
  error        text
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, id);
