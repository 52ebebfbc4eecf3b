-- The console: operator accounts, browser sessions (operators and merchants), the audit log and wallet credits
-- that wait for a second operator (maker ≠ checker).

CREATE TABLE operators (
  id            text PRIMARY KEY,
  email         text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  role          text NOT NULL CHECK (role IN ('viewer', 'finance', 'admin')),
  -- scrypt$N$r$p$salt$hash (base64); never the password itself.
  password_hash text NOT NULL,
  disabled      boolean NOT NULL DEFAULT false,
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
-- Addresses are compared without case: one account per mailbox.
CREATE UNIQUE INDEX operators_email ON operators (lower(email));

-- A session is known by the SHA-256 of its cookie value, so a database dump opens no session.
CREATE TABLE console_sessions (
  token_hash          text PRIMARY KEY,
  kind                text NOT NULL CHECK (kind IN ('operator', 'merchant')),
  operator_id         text REFERENCES operators (id),
  merchant_id         text REFERENCES merchants (id),
  -- A merchant session ends when the merchant's credentials are rotated.
  credentials_version integer,
  client_address      text NOT NULL DEFAULT '',
  created_at          timestamptz NOT NULL DEFAULT now(),
  expires_at          timestamptz NOT NULL,
  CHECK ((kind = 'operator') = (operator_id IS NOT NULL)),
  CHECK ((kind = 'merchant') = (merchant_id IS NOT NULL))
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

CREATE TABLE audit_log (
  id             bigserial PRIMARY KEY,
  at             timestamptz NOT NULL DEFAULT now(),
  -- The operator's e-mail address, `operator:admin-token`, or `merchant:MR…` for a merchant's console session.
  actor          text NOT NULL,
  actor_name     text NOT NULL DEFAULT '',
  actor_role     text NOT NULL,
  action         text NOT NULL,
  target         text NOT NULL DEFAULT '',
  client_address text NOT NULL DEFAULT '',
  outcome        text NOT NULL CHECK (outcome IN ('ok', 'denied', 'failed')),
  http_status    integer NOT NULL,
  detail         text NOT NULL DEFAULT ''
);

CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_append_only();

CREATE TABLE credit_requests (
  id           text PRIMARY KEY,
  wallet_id    text NOT NULL REFERENCES wallets (id),
  amount       bigint NOT NULL CHECK (amount > 0),
  reference    text,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  requested_by text NOT NULL,
  decided_by   text,
  decided_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'pending') = (decided_by IS NULL)),
  -- Maker ≠ checker, kept by the database too: nobody approves their own request.
  CHECK (status <> 'approved' OR decided_by <> requested_by)
);
CREATE INDEX credit_requests_by_status ON credit_requests (status, id);
