// ax-bench: safe CWE-79 — Koa search page: the branch echoing the query only runs under the constant flag ECHO_QUERY = false
import Koa from "koa";
import { searchIndex } from "./search-index.js";

const ECHO_QUERY = false;
const app = new Koa();

app.use(async (ctx) => {
  const q = String(ctx.query.q || "");
  const hits = await searchIndex.search(q, { limit: 20 });
  ctx.type = "html";
  if (hits.length === 0) {
    if (ECHO_QUERY) {
      ctx.body = `<main><p>No results for <b>${q}</b>.</p></main>`; // ax-bench: sink
    } else {
      ctx.body = "<main><p>No results.</p></main>";
    }
    return;
  }
  ctx.body = `<main><ul>${hits.map((h) => `<li><a href="/p/${h.id}">${h.titleHtml}</a></li>`).join("")}</ul></main>`;
});

app.listen(3002);
