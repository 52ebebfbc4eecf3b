-- Bank files (docs/operator/bank-files.md): the pain.001 files cut for the bank, which payouts each holds, and every file
-- the bank put in the inbox.

-- A cut file, kept whole: a crash between the cut and the delivery delivers this same text again, and the
-- operator can download any file ever cut. delivered_at is null until it is in the bank's outbox.
CREATE TABLE bank_files (
  msg_id       text PRIMARY KEY CHECK (length(msg_id) BETWEEN 1 AND 35),
  created_at   timestamptz NOT NULL DEFAULT now(),
  payout_count integer NOT NULL CHECK (payout_count > 0),
  -- Paise: the file's CtrlSum.
  ctrl_sum     bigint NOT NULL CHECK (ctrl_sum > 0),
  xml          text NOT NULL,
  delivered_at timestamptz,
  -- Who delivers it: the instance that cut it, or, once this has passed (it crashed), any instance.
  delivery_lease_until timestamptz
);
CREATE INDEX bank_files_undelivered ON bank_files (created_at) WHERE delivered_at IS NULL;

-- A payout goes into at most one file, ever: the unique payout_id is what guarantees it.
CREATE TABLE bank_file_items (
  msg_id    text NOT NULL REFERENCES bank_files (msg_id),
  payout_id text NOT NULL UNIQUE REFERENCES payouts (id)
);
CREATE INDEX bank_file_items_msg ON bank_file_items (msg_id);

-- Every file read from the inbox, applied or failed (with why). The same bytes again are known by their SHA-256.
CREATE TABLE inbound_bank_files (
  sha256       text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  name         text NOT NULL,
  message_type text,
  state        text NOT NULL CHECK (state IN ('applied', 'failed')),
  reason       text,
  entries      integer NOT NULL DEFAULT 0,
  refused      integer NOT NULL DEFAULT 0,
  received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbound_bank_files_received ON inbound_bank_files (received_at DESC);
