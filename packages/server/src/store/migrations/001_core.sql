-- Core schema: merchants, wallets and the append-only ledger that is the only way a balance moves.

CREATE TABLE settings (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE merchants (
  id                      text PRIMARY KEY,
  name                    text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  status                  text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  api_key                 text NOT NULL UNIQUE,
  secret_key              text NOT NULL,
  webhook_secret          text NOT NULL,
  -- Bumped on every rotation; tokens carry it, so rotation also ends the sessions opened with old keys.
  credentials_version     integer NOT NULL DEFAULT 1,
  daily_limit             bigint CHECK (daily_limit >= 0),
  monthly_limit           bigint CHECK (monthly_limit >= 0),
  collection_callback_url text,
  upi_vpa                 text,
  upi_payee_name          text,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE wallets (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  -- Maintained only by the ledger trigger below; the CHECK is what keeps a balance from going negative.
  balance     bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wallets_by_merchant ON wallets (merchant_id, id);

CREATE TABLE ledger_entries (
  id            bigserial PRIMARY KEY,
  wallet_id     text NOT NULL REFERENCES wallets (id),
  kind          text NOT NULL CHECK (kind IN ('credit', 'payout_debit', 'payout_refund', 'collection_credit')),
  amount        bigint NOT NULL,
  balance_after bigint NOT NULL,
  payout_id     text,
  collection_id text,
  reference     text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'payout_debit') = (amount < 0)),
  CHECK (amount <> 0),
  CHECK ((kind IN ('payout_debit', 'payout_refund')) = (payout_id IS NOT NULL)),
  CHECK ((kind = 'collection_credit') = (collection_id IS NOT NULL))
);
CREATE INDEX ledger_by_wallet ON ledger_entries (wallet_id, id);
-- A payout is debited once and refunded once; a collection credits once; a referenced credit happens once.
CREATE UNIQUE INDEX ledger_once_per_payout ON ledger_entries (payout_id, kind) WHERE payout_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_once_per_collection ON ledger_entries (collection_id) WHERE collection_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_credit_reference ON ledger_entries (wallet_id, reference)
  WHERE kind = 'credit' AND reference IS NOT NULL;

-- Every entry moves its wallet's balance in the same statement, so balance = sum(entries) at every commit.
CREATE FUNCTION ledger_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE wallets SET balance = balance + NEW.amount, updated_at = now()
   WHERE id = NEW.wallet_id
  RETURNING balance INTO NEW.balance_after;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'wallet % does not exist', NEW.wallet_id USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_apply BEFORE INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_apply();

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
