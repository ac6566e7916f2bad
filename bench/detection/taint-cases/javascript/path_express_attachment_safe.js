// ax-bench: safe CWE-22 — Express attachment route keeps path.basename of the name and serves allowlisted extensions only
import fs from "node:fs";
import path from "node:path";
import express from "express";

const UPLOAD_DIR = path.resolve("uploads");
const ALLOWED_EXTENSIONS = new Set([".pdf", ".png", ".jpg", ".txt"]);
const router = express.Router();

router.get("/attachments", (req, res) => {
  const name = path.basename(String(req.query.file || ""));
  if (!ALLOWED_EXTENSIONS.has(path.extname(name).toLowerCase())) {
    res.status(400).send("unsupported file");
    return;
  }
  const filePath = path.join(UPLOAD_DIR, name);
  res.attachment(name);
  fs.createReadStream(filePath) // ax-bench: sink
    .on("error", () => res.status(404).end())
    .pipe(res);
});

export default router;
