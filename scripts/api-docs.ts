import fs from "node:fs";
import { renderApiMarkdown } from "@ax/api-server";

fs.writeFileSync(new URL("../docs/api.md", import.meta.url), renderApiMarkdown());
process.stdout.write("wrote docs/api.md\n");
