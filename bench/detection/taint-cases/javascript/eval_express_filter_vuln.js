// ax-bench: vulnerable CWE-95 — Express order report compiles the client's filter expression, read from an object, with new Function
import express from "express";
import { loadOrders } from "../db/orders.js";

const router = express.Router();
router.use(express.json());

router.post("/reports/orders", async (req, res, next) => {
  try {
    const filters = {
      preset: "order.total > 100 && order.status === 'paid'",
      custom: req.body.filter,
    };
    const predicate = new Function("order", `return (${filters.custom});`); // ax-bench: sink
    const orders = await loadOrders(req.user.accountId);
    res.json(orders.filter((order) => predicate(order)));
  } catch (err) {
    next(err);
  }
});

export default router;
