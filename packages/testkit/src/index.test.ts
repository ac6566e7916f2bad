// The test stack cleans up after itself on the real PostgreSQL and Redis.
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { createTestStack, dropQueueKeys, TEST_REDIS_URL } from "./index";

describe("createTestStack().close()", () => {
  it("drops every Redis key under the suite's queue prefix, of every queue, and nothing else", async () => {
    const stack = await createTestStack();
    const prefix = stack.config.redis.queuePrefix;
    const redis = new Redis(TEST_REDIS_URL);
    const outsider = `ax-testkit-outsider-${process.pid}`;
    try {
      for (const name of ["scans", "webhooks", "maintenance"]) {
        const q = new Queue(name, { connection: { url: TEST_REDIS_URL }, prefix });
        await q.add("job", { n: 1 });
        await q.close();
      }
      await redis.set(outsider, "1", "EX", 60);
      expect((await redis.keys(`${prefix}:*`)).length).toBeGreaterThanOrEqual(6);
      await stack.close();
      expect(await redis.keys(`${prefix}:*`)).toEqual([]);
      expect(await redis.get(outsider)).toBe("1");
    } finally {
      await redis.del(outsider);
      redis.disconnect();
    }
  });

  it("serves the benchmarks' prefixes too", async () => {
    const redis = new Redis(TEST_REDIS_URL);
    const prefix = `{axbench-testkit-${process.pid}}`;
    try {
      await redis.set(`${prefix}:scans:1`, "x", "EX", 60);
      expect(await dropQueueKeys(TEST_REDIS_URL, prefix)).toBe(1);
      expect(await redis.exists(`${prefix}:scans:1`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it("refuses to delete keys outside a test prefix", async () => {
    await expect(dropQueueKeys(TEST_REDIS_URL, "{ax}")).rejects.toThrow(/outside a test prefix/);
  });
});
