// ax-bench: safe CWE-95 — Koa debug console: the eval() branch only runs under the module constant DEBUG = false
import Router from "@koa/router";
import bodyParser from "koa-bodyparser";

const DEBUG = false;
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
