-- Collections routed to the upstream connector (docs/operator/connectors.md): the connector that holds the
-- collection (NULL: Payrail's own payment page and PSP notifications), and, once the upstream created its copy
-- (`senderId` = our txnId), the upstream's txnId and the links the payer is sent to.

ALTER TABLE collections
  ADD COLUMN connector            text,
  ADD COLUMN upstream_txn_id      text,
  ADD COLUMN upstream_intent_url  text,
  ADD COLUMN upstream_payment_url text;

-- One upstream collection is the copy of at most one of ours.
CREATE UNIQUE INDEX collections_by_upstream_txn ON collections (upstream_txn_id) WHERE upstream_txn_id IS NOT NULL;
