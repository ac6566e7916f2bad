#!/usr/bin/env node
// The `ax` command. The sources are TypeScript, run through tsx's loader.
import { register } from "tsx/esm/api";

// `ax findings … | head`: a reader that stops early is not an error.
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

register();
const { run } = await import("../src/main.ts");
process.exitCode = await run(process.argv.slice(2));
