import { Redis } from "ioredis";
import { ProjectsDeletedNotice } from "@ax/contracts";

/**
 * Notices from the API to every worker, over Redis pub/sub: fire and forget, heard by the
 * workers connected at that moment. Whoever relies on one must also catch up without it (the
 * workers sweep their disks at start and periodically); a notice only makes that happen now.
 */

/** Under the queue prefix: deployments that share a Redis never hear each other's notices. */
export function projectsDeletedChannel(prefix: string): string {
  return `${prefix}:notice:projects-deleted`;
}

/** Returns how many subscribers heard it (0: no worker listening now). */
export async function publishProjectsDeleted(redis: Redis, prefix: string, notice: ProjectsDeletedNotice): Promise<number> {
  return redis.publish(projectsDeletedChannel(prefix), JSON.stringify(ProjectsDeletedNotice.parse(notice)));
}

export interface NoticeSubscription {
  close(): void;
}

/**
 * Listens on a connection of its own (a subscribed connection can send nothing else), across
 * reconnects (ioredis subscribes again by itself). Resolves once subscribed. A message that
 * does not parse is ignored: anything that can publish on the channel could send it.
 */
export async function subscribeProjectsDeleted(
  url: string,
  prefix: string,
  onNotice: (notice: ProjectsDeletedNotice) => void,
): Promise<NoticeSubscription> {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on("error", () => undefined);
  const channel = projectsDeletedChannel(prefix);
  redis.on("message", (from: string, message: string) => {
    if (from !== channel) return;
    let parsed: ReturnType<typeof ProjectsDeletedNotice.safeParse>;
    try {
      parsed = ProjectsDeletedNotice.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    if (parsed.success) onNotice(parsed.data);
  });
  try {
    await redis.subscribe(channel);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  return { close: () => redis.disconnect() };
}
