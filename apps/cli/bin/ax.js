#!/usr/bin/env node
// The `ax` command. The sources are TypeScript, run through tsx's loader.
import { register } from "tsx/esm/api";

register();
const { run } = await import("../src/main.ts");
process.exitCode = await run(process.argv.slice(2));
