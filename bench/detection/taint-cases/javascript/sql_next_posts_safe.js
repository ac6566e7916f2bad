// ax-bench: safe CWE-89 — Next.js API route puts only the filter object's constant column in the SQL text and binds the term as $1
import { Pool } from "pg";

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 5 });

export default async function handler(req, res) {
  if (req.method !== "GET") {
    res.setHeader("Allow", "GET");
    return res.status(405).end();
  }
  const filter = {
    column: "title",
    term: req.query.q || "",
  };
  const text = `SELECT id, slug, title FROM posts WHERE published AND ${filter.column} ILIKE $1 ORDER BY published_at DESC LIMIT 20`;
  const { rows } = await pool.query(text, [`%${filter.term}%`]); // ax-bench: sink
  res.setHeader("Cache-Control", "s-maxage=60, stale-while-revalidate");
  return res.status(200).json({ posts: rows });
}
