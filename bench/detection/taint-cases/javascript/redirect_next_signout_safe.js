// ax-bench: safe CWE-601 — Next.js sign-out route redirects to the constant path a helper returns, ignoring callbackUrl
import { serialize } from "cookie";

function callbackTarget() {
  // Partner sites used callbackUrl for phishing; it is ignored until an allowlist exists.
  return "/signed-out";
}

export default function handler(req, res) {
  if (req.method !== "POST" && req.method !== "GET") {
    res.setHeader("Allow", "GET, POST");
    return res.status(405).end();
  }
  res.setHeader(
    "Set-Cookie",
    serialize("session", "", { path: "/", maxAge: 0, httpOnly: true, secure: true, sameSite: "lax" }),
  );
  return res.redirect(302, callbackTarget(req.query.callbackUrl)); // ax-bench: sink
}
