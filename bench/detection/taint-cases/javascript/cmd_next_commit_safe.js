// ax-bench: safe CWE-78 — Next.js API route runs a git shell command built from constants only, whatever the request asks
import { execSync } from "node:child_process";

const REPO_DIR = "/srv/app";

export default function handler(req, res) {
  if (req.method !== "GET") {
    res.setHeader("Allow", "GET");
    return res.status(405).end();
  }
  const rev = "HEAD";
  try {
    const out = execSync("git -C " + REPO_DIR + " show --no-patch --format=%H%x09%ci " + rev, { encoding: "utf8" }); // ax-bench: sink
    const [commit, date] = out.trim().split("\t");
    return res.status(200).json({ rev, commit, date });
  } catch {
    return res.status(404).json({ error: "unknown revision" });
  }
}
