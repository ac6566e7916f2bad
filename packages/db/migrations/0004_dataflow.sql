-- Dataflow (issue 6): the taint analysis's verdict on a finding, as the scanner reports it
-- (NormalizedFinding.dataflow): {status, source_kind?, trace, confirms?}. NULL when the
-- analysis did not judge the finding (a kind or language it does not cover, or a scan from
-- before it existed). Filtered by status within one scan, whose index already narrows the
-- rows, so no index of its own.

ALTER TABLE findings ADD COLUMN dataflow jsonb;
