-- A diff-aware scan (baseline_commit) records what it compared its commit with: the merge-base
-- of the baseline and the commit, and the merge-base's findings the commit no longer has (what
-- the pull request fixes). Null for other scans (docs/scanning.md "Diff-aware scans").
ALTER TABLE scans ADD COLUMN diff jsonb;
