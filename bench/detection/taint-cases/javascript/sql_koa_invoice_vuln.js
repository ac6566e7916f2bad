// ax-bench: vulnerable CWE-89 — Koa invoice route util.format()s the id from the URL into SQL
import util from "node:util";
import Router from "@koa/router";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const router = new Router({ prefix: "/api" });

const INVOICE_SQL = "SELECT id, number, total_cents, issued_at FROM invoices WHERE id = %s AND account_id = %d";

router.get("/invoices/:id", async (ctx) => {
  const id = ctx.params.id;
  const sql = util.format(INVOICE_SQL, id, ctx.state.user.accountId);
  const { rows } = await pool.query(sql); // ax-bench: sink
  if (rows.length === 0) {
    ctx.status = 404;
    return;
  }
  ctx.body = rows[0];
});

export default router;
