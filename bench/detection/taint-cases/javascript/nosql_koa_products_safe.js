// ax-bench: safe CWE-943 — Koa product list keeps $where constant and parseInt()s the price limit into a $lte filter
import Router from "@koa/router";
import { MongoClient } from "mongodb";

const client = new MongoClient(process.env.MONGO_URL);
const products = client.db("shop").collection("products");
const router = new Router();

router.get("/products", async (ctx) => {
  const maxPrice = parseInt(ctx.query.maxPrice, 10) || 1000;
  const category = String(ctx.query.category || "all");
  const filter = { $where: "this.stock > this.reserved", price: { $lte: maxPrice } };
  if (category !== "all") filter.category = category;
  const docs = await products.find(filter).sort({ price: 1 }).limit(50).toArray(); // ax-bench: sink
  ctx.body = docs.map((d) => ({ id: d._id, name: d.name, price: d.price }));
});

export default router;
