-- Tenancy: organization -> groups -> projects -> scans -> findings (DESIGN §2).
-- Every child row carries organization_id so each query can be scoped to the caller's
-- organizations with one indexed comparison; ON DELETE CASCADE makes the group hard delete
-- one statement inside one transaction.

CREATE TABLE organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id                 text PRIMARY KEY,
  email              text NOT NULL,
  display_name       text NOT NULL,
  identity_provider  text NOT NULL,
  is_instance_admin  boolean NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));

CREATE TABLE memberships (
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role             text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE TABLE api_tokens (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name          text NOT NULL,
  token_hash    text NOT NULL UNIQUE,   -- SHA-256 hex; the token itself is never stored
  display_hint  text NOT NULL,          -- "axk_ab12…9f" so a user can tell tokens apart
  scopes        text[] NOT NULL DEFAULT '{}',
  expires_at    timestamptz NOT NULL,
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

CREATE TABLE groups (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name             text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, name)
);

CREATE TABLE projects (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  group_id         text NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  name             text NOT NULL,
  git_url          text NOT NULL,        -- canonical form, one project per URL and group
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (group_id, git_url)
);
CREATE INDEX projects_org_idx ON projects (organization_id);

CREATE TABLE scans (
  id                 text PRIMARY KEY,
  organization_id    text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  group_id           text NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  project_id         text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  created_by         text REFERENCES users (id) ON DELETE SET NULL,
  git_uri            text NOT NULL,
  branch             text,
  requested_branch   text,
  commit_sha         text,
  state              text NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  phase              text CHECK (phase IN ('cloning', 'analyzing', 'storing')),
  progress           integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
  error              text,
  attempts           integer NOT NULL DEFAULT 0,
  analyzers          jsonb NOT NULL DEFAULT '[]',
  languages          text[] NOT NULL DEFAULT '{}',
  counts             jsonb NOT NULL DEFAULT '{}',
  idempotency_key    text,
  request_hash       text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  started_at         timestamptz,
  finished_at        timestamptz,
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scans_org_created_idx ON scans (organization_id, created_at DESC, id DESC);
CREATE INDEX scans_project_idx ON scans (project_id, created_at DESC);
CREATE INDEX scans_active_idx ON scans (state, updated_at) WHERE state IN ('queued', 'running');
CREATE UNIQUE INDEX scans_idempotency_idx ON scans (organization_id, created_by, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

CREATE TABLE findings (
  id                 text PRIMARY KEY,
  scan_id            text NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  organization_id    text NOT NULL,
  project_id         text NOT NULL,
  analyzer           text NOT NULL,
  rule_id            text NOT NULL,
  title              text NOT NULL,
  message            text NOT NULL,
  cwe_id             text,
  cwe_name           text,
  owasp              text,
  file               text NOT NULL,
  start_line         integer NOT NULL,
  end_line           integer NOT NULL,
  start_column       integer NOT NULL,
  end_column         integer NOT NULL,
  snippet            text NOT NULL,
  fingerprint        text NOT NULL,
  first_seen_scan_id text,
  baseline_state     text NOT NULL DEFAULT 'new' CHECK (baseline_state IN ('new', 'unchanged', 'absent')),
  -- the reviewer's fields (spec §2), all strings
  status             text NOT NULL DEFAULT 'TO REVIEW',
  reason             text,
  remediation        text,
  severity           text NOT NULL,
  impact             text,
  likelihood         text,
  confidence         text NOT NULL,
  severity_rank      smallint GENERATED ALWAYS AS (
                       CASE severity WHEN 'CRITICAL' THEN 0 WHEN 'HIGH' THEN 1 WHEN 'MEDIUM' THEN 2
                                     WHEN 'LOW' THEN 3 ELSE 4 END) STORED,
  triaged_fields     text[] NOT NULL DEFAULT '{}',
  version            integer NOT NULL DEFAULT 1,
  raw                jsonb,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (scan_id, fingerprint)
);
CREATE INDEX findings_list_idx ON findings (scan_id, severity_rank, file, start_line, id);
CREATE INDEX findings_project_fp_idx ON findings (project_id, fingerprint);

CREATE TABLE finding_history (
  id                text PRIMARY KEY,
  finding_id        text NOT NULL REFERENCES findings (id) ON DELETE CASCADE,
  organization_id   text NOT NULL,
  changed_by        text REFERENCES users (id) ON DELETE SET NULL,
  source            text NOT NULL CHECK (source IN ('review', 'carried')),
  carried_from      text,
  changes           jsonb NOT NULL,
  version           integer NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX finding_history_finding_idx ON finding_history (finding_id, created_at, id);
