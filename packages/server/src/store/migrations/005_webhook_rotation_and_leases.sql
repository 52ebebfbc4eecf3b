-- Webhook-secret rotation: for 24 hours after a rotation every delivery is also signed with the secret that was
-- current just before it (a second rotation within the window replaces it; the older one stops at once).
ALTER TABLE merchants ADD COLUMN previous_webhook_secret text;
ALTER TABLE merchants ADD COLUMN previous_webhook_secret_expires_at timestamptz;

-- Lease ownership of claimed rows: each claim writes a fresh token, and every later write of the row by the
-- claimer names it (WHERE lease_owner = $token), so a worker whose lease expired and was taken over, or whose
-- row was rescheduled or replayed meanwhile, changes nothing.
ALTER TABLE jobs ADD COLUMN lease_owner text;
ALTER TABLE webhook_deliveries ADD COLUMN lease_owner text;
