/**
 * What a worker keeps of a project on its own disk between scans — the kept repository with a
 * full checkout, cppcheck's build directories — lives under
 * `WORKSPACE_DIR/.analyzer-state/<organization>/<project>/`, and must not outlive the project
 * (a group hard delete removes everything its projects left). Workers may run on machines the
 * API cannot reach, so each worker removes its own: when the API's notice of a delete arrives,
 * when a scan is discarded (its project may just have been deleted, and the scan may have put
 * its kept repository back after the delete), at start and every hour (notices sent while it
 * was down or disconnected are lost).
 *
 * PostgreSQL decides, never the notice: a directory goes only when `projects` no longer has
 * its project, within an organization this database has. Only directories named by two ids
 * are considered, and nothing outside `.analyzer-state` is touched. Organizations are never
 * deleted here, so an organization directory this database does not know belongs to another
 * deployment sharing the WORKSPACE_DIR (two `npm start` on one machine share the default):
 * it is left alone.
 */
import type { Dirent } from "node:fs";
import { readdir, rmdir } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "@ax/config";
import { isId, type Db } from "@ax/db";
import type { Logger } from "@ax/logger";
import { subscribeProjectsDeleted, type NoticeSubscription } from "@ax/queue";
import { forgetKeptAnalyses, removeTree } from "@ax/scanner";

const STATE_DIR = ".analyzer-state";
/** Ids per query: far under PostgreSQL's parameter limit, and one query for a usual worker. */
const CHUNK = 1_000;
export const PROJECT_STATE_SWEEP_MS = 3_600_000;

/** The project's state directory on this worker; refuses anything but ids as path parts. */
export function projectStateDir(workspaceDir: string, organizationId: string, projectId: string): string {
  if (!isId(organizationId) || !isId(projectId)) throw new Error("a project's state directory is named by its ids");
  return join(workspaceDir, STATE_DIR, organizationId, projectId);
}

export interface ProjectStateDeps {
  db: Db;
  config: Config;
  logger: Logger;
}

/**
 * Removes the state directories of projects that `projects` no longer has, within one
 * organization or all of them; returns how many. When it removed any, the dataflow analyzer's
 * memory of earlier scans (source lines, keyed by content) is dropped too.
 */
export async function sweepProjectState(deps: ProjectStateDeps, scope: { organizationId?: string } = {}): Promise<number> {
  const root = join(deps.config.worker.workspaceDir, STATE_DIR);
  const listed = scope.organizationId !== undefined ? [scope.organizationId].filter(isId) : await idDirs(root);
  const known = listed.length > 0 ? await deps.db.selectFrom("organizations").select("id").where("id", "in", listed).execute() : [];
  const orgs = known.map((o) => o.id);
  const found: { org: string; project: string }[] = [];
  for (const org of orgs) for (const project of await idDirs(join(root, org))) found.push({ org, project });
  const live = new Set<string>();
  for (let i = 0; i < found.length; i += CHUNK) {
    const ids = found.slice(i, i + CHUNK).map((f) => f.project);
    const rows = await deps.db.selectFrom("projects").select(["id", "organization_id"]).where("id", "in", ids).execute();
    for (const r of rows) live.add(`${r.organization_id}/${r.id}`);
  }
  let removed = 0;
  const touched = new Set<string>();
  for (const { org, project } of found) {
    if (live.has(`${org}/${project}`)) continue;
    // removeTree falls back to rm(1) for trees nested past PATH_MAX (a hostile checkout).
    await removeTree(join(root, org, project)).then(
      () => removed++,
      (err: unknown) =>
        deps.logger.warn("could not remove a deleted project's state", { organization_id: org, project_id: project, error: err }),
    );
    touched.add(org);
  }
  // An organization left empty (all its projects deleted): its directory goes too. rmdir removes only an empty one; a scan creating a project directory
  // in it at this moment either wins (rmdir fails) or makes it again (mkdir -p).
  for (const org of touched) await rmdir(join(root, org)).catch(() => undefined);
  if (removed > 0) {
    forgetKeptAnalyses();
    deps.logger.info("removed the kept state of deleted projects", {
      projects: removed,
      ...(scope.organizationId ? { organization_id: scope.organizationId } : {}),
    });
  }
  return removed;
}

/** Subdirectories named by an id; a symbolic link or anything else is not ours and is left alone. */
async function idDirs(dir: string): Promise<string[]> {
  const entries: Dirent[] = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && isId(e.name)).map((e) => e.name);
}

export interface ProjectStateJanitor {
  /** Sweeps now (after any sweep in progress); resolves with how many directories it removed. */
  sweep(scope?: { organizationId?: string }): Promise<number>;
  close(): void;
}

/**
 * The worker's side of a hard delete: subscribes to the API's notices, sweeps once at start
 * (after subscribing, so that nothing deleted meanwhile is missed) and every `everyMs`. Sweeps
 * run one at a time; a failed one is logged and the next catches up.
 */
export async function startProjectStateJanitor(deps: ProjectStateDeps, opts: { everyMs?: number } = {}): Promise<ProjectStateJanitor> {
  let last: Promise<unknown> = Promise.resolve();
  const sweep = (scope: { organizationId?: string } = {}) => {
    const run = last.then(() => sweepProjectState(deps, scope));
    last = run.catch((err: unknown) => deps.logger.warn("sweep of deleted projects' state failed", { error: err }));
    return run;
  };
  let subscription: NoticeSubscription | undefined;
  try {
    subscription = await subscribeProjectsDeleted(deps.config.redis.url, deps.config.redis.queuePrefix, (notice) => {
      // In memory first: that needs no query, and holds source lines of any project.
      forgetKeptAnalyses();
      sweep({ organizationId: notice.organization_id }).catch(() => undefined);
    });
  } catch (err) {
    // The hourly sweep still removes everything, later.
    deps.logger.warn("could not subscribe to delete notices", { error: err });
  }
  await sweep().catch(() => undefined);
  const timer = setInterval(() => void sweep().catch(() => undefined), opts.everyMs ?? PROJECT_STATE_SWEEP_MS);
  timer.unref();
  return {
    sweep,
    close() {
      clearInterval(timer);
      subscription?.close();
    },
  };
}
