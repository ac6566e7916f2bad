// ax-bench: vulnerable CWE-89 — Express (TypeScript) audit log passes the requested sort column through a helper into ORDER BY
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

function orderBy(requested: string): string {
  return requested || "created_at";
}

auditRouter.get("/tenants/:tenant/audit", async (req: Request<{ tenant: string }>, res: Response) => {
  const sort = typeof req.query.sort === "string" ? req.query.sort : "";
  const sql = "SELECT id, actor, action, created_at FROM audit_log WHERE tenant_id = $1 ORDER BY " + orderBy(sort) + " DESC LIMIT 100";
  const result = await pool.query<AuditRow>(sql, [req.params.tenant]); // ax-bench: sink
  res.json(result.rows);
});
