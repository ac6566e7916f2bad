-- The findings list pages by keyset (issue 16). Its key began with severity_rank, which follows
-- the reviewer's `severity`: a finding re-prioritised while a client paged jumped over the
-- cursor, and was listed twice or not at all. The list now orders by list_rank, the severity
-- rank a finding had when its scan stored it (what the analyzer reported, or the project's
-- review decision carried to it), then file, line and id: columns that never change.
--
-- The trigger fills it on insert, whoever inserts (the scan store, the FIXED records it copies
-- from the previous scan, which keep the rank they had, and tests seeding rows); nothing
-- updates it afterwards.
ALTER TABLE findings ADD COLUMN list_rank smallint;

-- Rows already stored: the rank before the first review change of their severity (the
-- `from` of that change), else the severity they have.
UPDATE findings f
   SET list_rank = CASE coalesce((SELECT h.changes -> 'severity' ->> 'from'
                                    FROM finding_history h
                                   WHERE h.finding_id = f.id AND h.source = 'review' AND h.changes ? 'severity'
                                   ORDER BY h.version, h.created_at
                                   LIMIT 1), f.severity)
                     WHEN 'CRITICAL' THEN 0 WHEN 'HIGH' THEN 1 WHEN 'MEDIUM' THEN 2 WHEN 'LOW' THEN 3 ELSE 4 END;
ALTER TABLE findings ALTER COLUMN list_rank SET NOT NULL;

CREATE FUNCTION findings_set_list_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.list_rank := coalesce(NEW.list_rank, CASE NEW.severity WHEN 'CRITICAL' THEN 0 WHEN 'HIGH' THEN 1 WHEN 'MEDIUM' THEN 2 WHEN 'LOW' THEN 3 ELSE 4 END);
  RETURN NEW;
END
$$;
CREATE TRIGGER findings_list_rank BEFORE INSERT ON findings FOR EACH ROW EXECUTE FUNCTION findings_set_list_rank();

-- The index the list walks, on the new key. It also serves every lookup by scan; the SARIF
-- export and the chat's top findings, still ordered by the current severity, sort one scan's
-- rows.
DROP INDEX findings_list_idx;
CREATE INDEX findings_list_idx ON findings (scan_id, list_rank, file, start_line, id);
