// ax-bench: safe CWE-95 — Express order report compiles only the object's constant preset filter with new Function
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
    const predicate = new Function("order", `return (${filters.preset});`); // ax-bench: sink
    const orders = await loadOrders(req.user.accountId);
    res.json(orders.filter((order) => predicate(order)));
  } catch (err) {
    next(err);
  }
});

export default router;
