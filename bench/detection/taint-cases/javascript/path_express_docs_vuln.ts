// ax-bench: vulnerable CWE-22 — Express (TypeScript) docs bundle reads every page named in the query list
import { readFile } from "node:fs/promises";
import path from "node:path";
import express, { type Request, type Response } from "express";

const DOCS_DIR = path.resolve("content/docs");
const MAX_PAGES = 10;
export const docsRouter = express.Router();

docsRouter.get("/docs/bundle", async (req: Request, res: Response) => {
  const requested: string[] = ([] as unknown[]).concat(req.query.page ?? []).map(String);
  const pages: string[] = [];
  for (const page of requested.slice(0, MAX_PAGES)) {
    try {
      pages.push(await readFile(path.join(DOCS_DIR, page), "utf8")); // ax-bench: sink
    } catch {
      pages.push(`> ${page} is missing`);
    }
  }
  res.type("text/markdown").send(pages.join("\n\n---\n\n"));
});
