-- Refuted pattern matches (issue 19): a pattern rule's match at a sink the taint analysis
-- judged, where no untrusted source reaches the sink's dangerous arguments. They are not
-- findings — not listed, counted, exported, gated on or announced as findings — and are kept
-- per scan for inspection (GET /api/v2/scan/{scan_id}/refuted), with the analysis's reason.
-- Replaced when a scan's results are stored again; gone with the scan.

CREATE TABLE refuted_matches (
  id               text PRIMARY KEY,
  scan_id          text NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  organization_id  text NOT NULL,
  project_id       text NOT NULL,
  analyzer         text NOT NULL,
  rule_id          text NOT NULL,
  title            text NOT NULL,
  cwe_id           text,
  file             text NOT NULL,
  start_line       integer NOT NULL,
  end_line         integer NOT NULL,
  start_column     integer NOT NULL,
  end_column       integer NOT NULL,
  snippet          text NOT NULL,
  severity         text NOT NULL,
  reason           text NOT NULL,
  sources          jsonb NOT NULL DEFAULT '[]'
);

-- The audit view's order: file, line, id within one scan.
CREATE INDEX refuted_matches_scan_place ON refuted_matches (scan_id, file, start_line, id);
