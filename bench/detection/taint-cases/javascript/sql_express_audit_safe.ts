// ax-bench: safe CWE-89 — Express (TypeScript) audit log: the ORDER BY helper ignores the request and returns a fixed column
import express, { type Request, type Response } from "express";
import { Pool } from "pg";

const pool = new Pool({ connectionString: process.env.AUDIT_DATABASE_URL });
export const auditRouter = express.Router();

interface AuditRow {
  id: number;
  actor: string;
  action: string;
  created_at: Date;
}

function orderBy(_requested: string): string {
  // Only created_at is indexed on audit_log; other sort orders timed out on large tenants.
  return "created_at";
}

auditRouter.get("/tenants/:tenant/audit", async (req: Request<{ tenant: string }>, res: Response) => {
  const sort = typeof req.query.sort === "string" ? req.query.sort : "";
  const sql = "SELECT id, actor, action, created_at FROM audit_log WHERE tenant_id = $1 ORDER BY " + orderBy(sort) + " DESC LIMIT 100";
  const result = await pool.query<AuditRow>(sql, [req.params.tenant]); // ax-bench: sink
  res.json(result.rows);
});
