/**
 * Analyzer state kept between scans of one project on one worker — cppcheck's build
 * directory, which lets it re-analyse only the files whose content changed (its results and
 * whole-program data for the others are reused, as a full run would compute them).
 *
 * A run claims the kept directory by renaming it to a name of its own, so two scans of the
 * same project at once never share files (the second finds none and starts empty); a
 * completed run puts it back, a failed or cancelled one deletes it (it may be half written).
 * The state is only a speed-up: if it cannot be read or written, the analyzer runs from
 * scratch.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

export async function withKeptDir<T>(
  opts: { stateDir: string | undefined; name: string; scratchDir: string },
  work: (dir: string) => Promise<T>,
): Promise<T> {
  if (!opts.stateDir) {
    const dir = join(opts.scratchDir, opts.name);
    await mkdir(dir, { recursive: true });
    return work(dir);
  }
  const kept = join(opts.stateDir, opts.name);
  const mine = `${kept}.busy-${randomBytes(6).toString("hex")}`;
  const claimed = await mkdir(dirname(kept), { recursive: true, mode: 0o700 })
    .then(() => rename(kept, mine))
    .then(
      () => true,
      () => false,
    );
  if (!claimed) await mkdir(mine, { recursive: true, mode: 0o700 });
  let done = false;
  try {
    const result = await work(mine);
    done = true;
    return result;
  } finally {
    const putBack = done
      ? rm(kept, { recursive: true, force: true }).then(() => rename(mine, kept))
      : Promise.reject(new Error("not completed"));
    await putBack.catch(() => rm(mine, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined));
  }
}
