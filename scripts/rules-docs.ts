import fs from "node:fs";
import { renderRulesMarkdown } from "../packages/rules/src/docs";

fs.writeFileSync(new URL("../docs/rules.md", import.meta.url), renderRulesMarkdown());
process.stdout.write("wrote docs/rules.md\n");
