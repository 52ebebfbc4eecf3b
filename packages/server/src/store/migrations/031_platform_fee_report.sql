-- The platform's fee report (GET /admin/v1/platform/fees, docs/operator/charging-merchants.md) sums the entries of
-- the platform's fee and GST wallets written in a window of IST days. ledger_by_wallet (wallet_id, id) would read every
-- entry those two wallets ever had to find one day's: this reads the window's alone, and holds only their rows.
CREATE INDEX ledger_platform_fees_by_time ON ledger_entries (wallet_id, created_at)
  WHERE wallet_id IN ('PW_FEES', 'PW_GST');
