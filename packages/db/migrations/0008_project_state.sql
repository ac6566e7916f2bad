-- A group hard delete removes everything its projects left (docs/operations.md "Data retention
-- and deletion"). The analysis cache holds analyzers' findings with their code snippets,
-- whole-scan results and the review model's labels; keyed by organization only, it outlived
-- the projects whose code it came from. It becomes per project, with a foreign key that
-- deletes a project's entries with the project.
--
-- Existing entries cannot be attributed to a project (a blob id says nothing of where it came
-- from), and some belong to projects deleted already: they are dropped. It is a cache: the
-- first scan of each project afterwards analyses every file once. Workers of the previous
-- release keep scanning during a rolling deploy; their writes lack the project and fail,
-- which they already treat as a cache that cannot be written (no caching until replaced).
DELETE FROM analysis_cache;
ALTER TABLE analysis_cache ADD COLUMN project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE;
ALTER TABLE analysis_cache DROP CONSTRAINT analysis_cache_pkey;
ALTER TABLE analysis_cache ADD PRIMARY KEY (project_id, analyzer, analyzer_version, blob_sha);
