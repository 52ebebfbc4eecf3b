-- Secrets at rest (docs/operator/secrets-at-rest.md). api_key, secret_key, webhook_secret and previous_webhook_secret hold
-- values sealed under PAYRAIL_MASTER_KEY (or plain text without one). A sealed API key is random text, so merchants
-- are found by a keyed hash of the API key instead; the server fills it for rows written before this migration.
ALTER TABLE merchants ADD COLUMN api_key_lookup text;
CREATE UNIQUE INDEX merchants_by_api_key_lookup ON merchants (api_key_lookup);
-- Uniqueness of API keys now rests on the lookup hash; an index of ciphertexts serves nothing.
ALTER TABLE merchants DROP CONSTRAINT IF EXISTS merchants_api_key_key;
