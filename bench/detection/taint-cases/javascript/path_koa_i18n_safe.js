// ax-bench: safe CWE-22 — Koa translations route picks one of three constant locale files with ternaries on the query value
import { readFile } from "node:fs/promises";
import path from "node:path";
import Router from "@koa/router";

const LOCALES = path.join(process.cwd(), "locales");
const router = new Router();

router.get("/i18n", async (ctx) => {
  const lang = ctx.query.lang;
  const file = lang === "fr" ? "fr.json" : lang === "de" ? "de.json" : "en.json";
  try {
    const messages = await readFile(path.join(LOCALES, file), "utf8"); // ax-bench: sink
    ctx.type = "application/json";
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.body = messages;
  } catch {
    ctx.status = 404;
  }
});

export default router;
