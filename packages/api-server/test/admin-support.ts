/** Shared by the Admin suites: an instance administrator (no organization) and their token. */
import { randomBytes } from "node:crypto";
import { Worker } from "bullmq";
import { createToken, createUser } from "@ax/db";
import { workerConnection } from "@ax/queue";
import { waitFor } from "@ax/testkit";
import type { ApiHarness } from "@ax/testkit/api";

export async function instanceAdminToken(h: ApiHarness): Promise<string> {
  const user = await createUser(h.stack.handle.db, {
    email: `operator-${randomBytes(4).toString("hex")}@acme.test`,
    displayName: "Olga Operator",
    identityProvider: "local",
    isInstanceAdmin: true,
  });
  return (await createToken(h.stack.handle.db, { userId: user.id, name: "admin", expiresInDays: 1 })).token;
}

/** The `name=value` part of a Set-Cookie header, for sending the cookie back. */
export function sessionCookie(setCookie: string[] | string | undefined): string {
  const header = (Array.isArray(setCookie) ? setCookie : [setCookie ?? ""]).find((c) => c.startsWith("ax_admin_session="));
  if (!header) throw new Error("no ax_admin_session cookie was set");
  return header.split(";")[0]!;
}

/**
 * Runs the scans queue with a processor that fails every job, until `n` jobs have failed: no
 * real job fails on demand. A real BullMQ worker under the suite's prefix; the suite's own
 * worker must not be running meanwhile.
 */
export async function failScanJobs(h: ApiHarness, n: number, message: string): Promise<void> {
  const connection = workerConnection(h.stack.config.redis.url);
  const failing = new Worker(
    "scans",
    async () => {
      throw new Error(message);
    },
    { connection, prefix: h.stack.config.redis.queuePrefix },
  );
  const scans = h.deps.queue.queue("scans");
  await waitFor(async () => (await scans.getFailedCount()) >= n, { what: `${n} failed jobs` });
  await failing.close();
  connection.disconnect();
}
