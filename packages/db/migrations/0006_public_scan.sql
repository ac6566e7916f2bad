-- Public Scan (DESIGN §5): scans requested without a token belong to an internal organization
-- that no user is a member of, so the ordinary tenant scoping keeps them away from every
-- customer. `internal_key` names such organizations ('public'); customers' organizations
-- have NULL. Unique, so that concurrent first requests create one organization, not two;
-- a name could not serve, since customers choose their organizations' names.
ALTER TABLE organizations ADD COLUMN internal_key text UNIQUE;
