// ax-bench: safe CWE-22 — Express (TypeScript) docs bundle reads pages from a constant list picked by index from the query
import { readFile } from "node:fs/promises";
import path from "node:path";
import express, { type Request, type Response } from "express";

const DOCS_DIR = path.resolve("content/docs");
const PAGES = ["getting-started.md", "configuration.md", "deployment.md", "faq.md"];
export const docsRouter = express.Router();

docsRouter.get("/docs/bundle", async (req: Request, res: Response) => {
  const indexes: number[] = ([] as unknown[]).concat(req.query.page ?? []).map(Number);
  const pages: string[] = [];
  for (const index of indexes) {
    const page = PAGES[index];
    if (page === undefined) continue;
    try {
      pages.push(await readFile(path.join(DOCS_DIR, page), "utf8")); // ax-bench: sink
    } catch {
      pages.push(`> ${page} is missing`);
    }
  }
  res.type("text/markdown").send(pages.join("\n\n---\n\n"));
});
