import fs from "node:fs";
import { renderApiMarkdown } from "../apps/api/src/api-docs";

fs.writeFileSync(new URL("../docs/api.md", import.meta.url), renderApiMarkdown());
process.stdout.write("wrote docs/api.md\n");
