-- Liens (docs/operator/liens.md): a release says why on the lien itself, not only in the audit log, so that the
-- console shows it beside the lien. A lien released in several parts keeps the latest release's reason and who
-- released it (the audit log keeps every one). Liens released before this migration point to the audit log.
ALTER TABLE liens
  ADD COLUMN release_reason text CHECK (length(release_reason) BETWEEN 1 AND 500),
  ADD COLUMN released_by    text,
  ADD CONSTRAINT liens_release_named CHECK ((release_reason IS NULL) = (released_by IS NULL));
UPDATE liens SET release_reason = 'released before reasons were kept on the lien: see the audit log (lien.release)',
                 released_by = 'unknown'
 WHERE released > 0;
ALTER TABLE liens ADD CONSTRAINT liens_release_reason CHECK (released = 0 OR release_reason IS NOT NULL);
