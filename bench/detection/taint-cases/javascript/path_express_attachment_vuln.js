// ax-bench: vulnerable CWE-22 — Express attachment route joins the file name from the query onto the uploads folder
import fs from "node:fs";
import path from "node:path";
import express from "express";

const UPLOAD_DIR = path.resolve("uploads");
const router = express.Router();

router.get("/attachments", (req, res) => {
  const name = req.query.file;
  if (!name) {
    res.status(400).send("file is required");
    return;
  }
  const filePath = path.join(UPLOAD_DIR, name);
  res.attachment(path.basename(filePath));
  fs.createReadStream(filePath) // ax-bench: sink
    .on("error", () => res.status(404).end())
    .pipe(res);
});

export default router;
