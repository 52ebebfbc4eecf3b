-- A UTR Payrail made up: an operator resolved a payout as SUCCESS without giving the bank's reference, and the
-- resolve filled in a 12-digit one that looks like a bank's. Marked so that the console, the admin API and the CLI
-- say it is not the bank's (issue 32). Set with the SUCCESS that writes the UTR, in the same statement; a UTR the
-- bank or the connector gave is never marked.
ALTER TABLE payouts ADD COLUMN utr_invented boolean NOT NULL DEFAULT false;
