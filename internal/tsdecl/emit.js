// Anvil's declaration emitter: one JSON request a line on stdin
// ({"id", "fileName", "text"}), one answer a line on stdout ({"id",
// "dts", "codes"} or {"id", "error"}). It asks TypeScript for the file's
// declaration emit from its text alone (ts.transpileDeclaration), with the
// diagnostics that say the emit would need the checker (TS9xxx under
// isolatedDeclarations) or that the text does not parse.
"use strict";
const ts = require(process.argv[1]);
const readline = require("readline");
const options = { declaration: true, isolatedDeclarations: true, strict: true, noResolve: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext };
function answer(o) { process.stdout.write(JSON.stringify(o) + "\n"); }
readline.createInterface({ input: process.stdin, terminal: false }).on("line", (line) => {
  let req;
  try { req = JSON.parse(line); } catch (e) { answer({ id: -1, error: "a request that is not JSON" }); return; }
  try {
    const out = ts.transpileDeclaration(String(req.text), { fileName: String(req.fileName), reportDiagnostics: true, compilerOptions: options });
    answer({ id: req.id, dts: out.outputText, codes: (out.diagnostics || []).map((d) => d.code) });
  } catch (e) {
    answer({ id: req.id, error: String(e && e.message || e) });
  }
});
