import { deleteExpiredPublicScans, type Db, type PublicScanPurge } from "@ax/db";
import type { Config } from "@ax/config";
import type { Logger } from "@ax/logger";

export const PUBLIC_SCAN_EXPIRY_SCHEDULER = "public-scan-expiry";

/**
 * Deletes public scans requested more than PUBLIC_SCAN_RETENTION_HOURS ago, with their
 * findings and projects (DESIGN §9). Run by the repeatable `public-scan.expire` job; the
 * cutoff is taken when it runs, so a late or repeated run deletes the same set or nothing.
 * Readers already answer 404 past the cutoff, so a run that is late exposes nothing.
 */
export async function expirePublicScans(deps: { db: Db; config: Config; logger: Logger }, now = new Date()): Promise<PublicScanPurge> {
  const before = new Date(now.getTime() - deps.config.publicScan.retentionHours * 3_600_000);
  const purged = await deleteExpiredPublicScans(deps.db, before);
  if (purged.scans > 0) deps.logger.info("deleted expired public scans", { ...purged });
  return purged;
}
