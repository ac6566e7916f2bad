// ax-bench: vulnerable CWE-89 — Express product search interpolates the term into SQL with a template literal
import express from "express";
import mysql from "mysql2/promise";

const pool = mysql.createPool({
  host: process.env.DB_HOST,
  user: process.env.DB_USER,
  password: process.env.DB_PASSWORD,
  database: "shop",
  connectionLimit: 10,
});

const router = express.Router();

router.get("/products/search", async (req, res, next) => {
  try {
    const term = req.query.q ?? "";
    const sql = `SELECT id, name, price FROM products WHERE name LIKE '%${term}%' AND active = 1 LIMIT 50`;
    const [rows] = await pool.query(sql); // ax-bench: sink
    res.json(rows);
  } catch (err) {
    next(err);
  }
});

export default router;
