/**
 * Analyzer state kept between scans of one project on one worker — cppcheck's build
 * directory, which lets it re-analyse only the files whose content changed (its results and
 * whole-program data for the others are reused, as a full run would compute them).
 *
 * The run works on a private copy in its scratch directory, so two scans of the same project
 * at once never share files; a completed run publishes its copy by renames. The state is
 * only a speed-up: if it cannot be read or written, the analyzer runs from scratch.
 */
import { randomBytes } from "node:crypto";
import { cp, mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

export async function withKeptDir<T>(opts: { stateDir: string | undefined; name: string; scratchDir: string }, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = join(opts.scratchDir, opts.name);
  const kept = opts.stateDir ? join(opts.stateDir, opts.name) : null;
  if (kept) await cp(kept, dir, { recursive: true, errorOnExist: false }).catch(() => undefined);
  await mkdir(dir, { recursive: true });
  const result = await work(dir);
  if (kept) await publish(dir, kept).catch(() => undefined);
  return result;
}

async function publish(dir: string, kept: string): Promise<void> {
  const tag = randomBytes(6).toString("hex");
  const fresh = `${kept}.new-${tag}`;
  const old = `${kept}.old-${tag}`;
  try {
    await mkdir(dirname(kept), { recursive: true, mode: 0o700 });
    await cp(dir, fresh, { recursive: true });
    await rename(kept, old).catch(() => undefined);
    await rename(fresh, kept);
  } finally {
    await rm(fresh, { recursive: true, force: true }).catch(() => undefined);
    await rm(old, { recursive: true, force: true }).catch(() => undefined);
  }
}
