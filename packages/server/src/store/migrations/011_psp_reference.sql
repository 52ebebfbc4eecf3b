-- Live-mode outcomes (docs/operator/live-mode.md): the PSP's own reference of a collection's payment, kept the first time a
-- notification brings it with the txnId, so that later notifications may name the collection by it alone.
ALTER TABLE collections ADD COLUMN psp_reference text;
CREATE UNIQUE INDEX collections_by_psp_reference ON collections (psp_reference) WHERE psp_reference IS NOT NULL;
