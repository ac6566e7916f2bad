// ax-bench: vulnerable CWE-95 — Koa debug console eval()s the posted code whenever NODE_ENV is not "production"
import Router from "@koa/router";
import bodyParser from "koa-bodyparser";

const DEBUG = process.env.NODE_ENV !== "production";
const router = new Router({ prefix: "/_debug" });

router.post("/eval", bodyParser(), async (ctx) => {
  if (DEBUG) {
    const code = ctx.request.body.code || "";
    let result;
    try {
      result = eval(code); // ax-bench: sink
    } catch (err) {
      result = `error: ${err.message}`;
    }
    ctx.body = { result: String(result) };
    return;
  }
  ctx.status = 404;
});

export default router;
