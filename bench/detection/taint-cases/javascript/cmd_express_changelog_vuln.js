// ax-bench: vulnerable CWE-78 — Express changelog endpoint interpolates the requested count into a git shell command
import { exec } from "node:child_process";
import express from "express";

const REPO = "/srv/app";
const app = express();

function parseLog(stdout) {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [hash, subject] = line.split("\t");
      return { hash, subject };
    });
}

app.get("/changelog", (req, res) => {
  const count = req.query.count || "20";
  exec(`git -C ${REPO} log -n ${count} --pretty=format:%h%x09%s`, { timeout: 5000 }, (err, stdout) => { // ax-bench: sink
    if (err) {
      res.status(500).json({ error: "could not read the history" });
      return;
    }
    res.json(parseLog(stdout));
  });
});

app.listen(Number(process.env.PORT) || 3000);
