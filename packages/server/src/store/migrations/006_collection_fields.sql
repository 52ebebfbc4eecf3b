-- Collections as existing integrations create them: the payee address and name fixed at creation (a `vpa` may be
-- chosen per collection), the transaction type and channel they send, and the random key of the hosted payment
-- page (`paymentUrl`).

ALTER TABLE collections
  ADD COLUMN txn_type   text NOT NULL DEFAULT 'INTENT' CHECK (txn_type IN ('INTENT', 'COLLECT')),
  ADD COLUMN channel    text NOT NULL DEFAULT '',
  ADD COLUMN payee_vpa  text NOT NULL DEFAULT '',
  ADD COLUMN payee_name text NOT NULL DEFAULT '',
  ADD COLUMN page_token text;

-- Rows created before this migration: what their intent link showed (the merchant's settings, or the sandbox
-- default address), and a random page key (gen_random_uuid is PostgreSQL's strong random source; 24 bytes).
UPDATE collections c
   SET txn_type   = CASE WHEN c.payment_mode = 'Collect' THEN 'COLLECT' ELSE 'INTENT' END,
       payee_vpa  = coalesce(m.upi_vpa, lower(m.id) || '@payrail'),
       payee_name = coalesce(m.upi_payee_name, m.name),
       page_token = translate(
         encode(decode(substr(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 1, 48), 'hex'),
                'base64'),
         '+/', '-_')
  FROM merchants m
 WHERE m.id = c.merchant_id;

ALTER TABLE collections ALTER COLUMN page_token SET NOT NULL;
CREATE UNIQUE INDEX collections_by_page_token ON collections (page_token);
