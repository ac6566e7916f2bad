-- Detection engine (issue 3): diff-aware scans, selection summary, merged sources,
-- suppressions, fixes, and the per-file analysis cache for incremental rescans.

ALTER TABLE scans ADD COLUMN baseline_commit text;
ALTER TABLE scans ADD COLUMN selection jsonb NOT NULL DEFAULT '{}';

ALTER TABLE findings ADD COLUMN sources jsonb NOT NULL DEFAULT '[]';
ALTER TABLE findings ADD COLUMN suppression jsonb;
ALTER TABLE findings ADD COLUMN fix jsonb;
ALTER TABLE findings ADD COLUMN introduced boolean;

-- Results of cacheable analyzers per file content (git blob id), per organization: a
-- tenant's scans reuse only their own organization's results, so the cache reveals
-- nothing about what other tenants scanned.
CREATE TABLE analysis_cache (
  organization_id   text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  analyzer          text NOT NULL,
  analyzer_version  text NOT NULL,
  blob_sha          text NOT NULL,
  findings          jsonb NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  last_used_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, analyzer, analyzer_version, blob_sha)
);
CREATE INDEX analysis_cache_used_idx ON analysis_cache (last_used_at);
