// ax-bench: vulnerable CWE-943 — Koa product list puts the price limit from the query into a MongoDB $where template literal
import Router from "@koa/router";
import { MongoClient } from "mongodb";

const client = new MongoClient(process.env.MONGO_URL);
const products = client.db("shop").collection("products");
const router = new Router();

router.get("/products", async (ctx) => {
  const maxPrice = ctx.query.maxPrice || "1000";
  const category = String(ctx.query.category || "all");
  const filter = { $where: `this.price <= ${maxPrice} && this.stock > this.reserved` };
  if (category !== "all") filter.category = category;
  const docs = await products.find(filter).sort({ price: 1 }).limit(50).toArray(); // ax-bench: sink
  ctx.body = docs.map((d) => ({ id: d._id, name: d.name, price: d.price }));
});

export default router;
