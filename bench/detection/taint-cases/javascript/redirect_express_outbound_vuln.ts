// ax-bench: vulnerable CWE-601 — Express (TypeScript) outbound-link tracker redirects to the target in the query
import express, { type Request, type Response } from "express";
import { Pool } from "pg";

const pool = new Pool({ connectionString: process.env.DATABASE_URL });
export const linkRouter = express.Router();

async function recordClick(target: string, campaign: string): Promise<void> {
  await pool.query("INSERT INTO link_clicks (target, campaign, clicked_at) VALUES ($1, $2, now())", [target, campaign]);
}

linkRouter.get("/out", async (req: Request, res: Response) => {
  const to = typeof req.query.to === "string" ? req.query.to : "";
  if (!to) {
    res.redirect("/");
    return;
  }
  await recordClick(to, String(req.query.c ?? ""));
  const location = to;
  res.redirect(302, location); // ax-bench: sink
});
