import { z } from "zod";

/**
 * Published (Redis pub/sub, best effort) after a hard delete committed, so that every worker
 * drops what it kept of the deleted projects on its own disk and in memory: workers run on
 * machines the API cannot reach. A notice only says where to look; a worker removes nothing
 * that PostgreSQL still lists. Fields are only ever added: workers of an older release parse it.
 */
export const ProjectsDeletedNotice = z.object({
  organization_id: z.string().min(1),
  project_ids: z.array(z.string().min(1)),
});
export type ProjectsDeletedNotice = z.infer<typeof ProjectsDeletedNotice>;
