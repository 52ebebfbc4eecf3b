-- The scheme of a token issued from plain credentials on the V1 token path (`{"api_key","secret_key"}`, as the
-- provider's live service accepts): such a request names no scheme of its own, so the merchant's setting decides.
ALTER TABLE merchants
  ADD COLUMN default_scheme text NOT NULL DEFAULT 'v2' CHECK (default_scheme IN ('v1', 'v2'));
