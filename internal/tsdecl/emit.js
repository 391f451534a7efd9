// Anvil's declaration emitter: one JSON request a line on stdin
// ({"id", "fileName", "text"}), one answer a line on stdout ({"id",
// "dts", "open", "codes"} or {"id", "error"}). It asks TypeScript for the
// file's declaration emit from its text alone (ts.transpileDeclaration),
// with the diagnostics that say the emit would need the checker (TS9xxx
// under isolatedDeclarations) or that the text does not parse.
//
// The emit writes a private member as `private x;`, without its type, yet
// an importer can read it (`new A()["x"]` is checked against that type).
// So "open" is the emit of the same text with every `private` modifier
// made `public` (the same length, so positions hold): it carries those
// types, and its diagnostics count too. It is null when the file has no
// private member.
"use strict";
const ts = require(process.argv[1]);
const readline = require("readline");
const options = { declaration: true, isolatedDeclarations: true, strict: true, noResolve: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext };
function answer(o) { process.stdout.write(JSON.stringify(o) + "\n"); }
function emit(text, fileName) {
  const out = ts.transpileDeclaration(text, { fileName, reportDiagnostics: true, compilerOptions: options });
  return { dts: out.outputText, codes: (out.diagnostics || []).map((d) => d.code) };
}
// opened returns text with its private modifiers made public, or null.
function opened(text, fileName) {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.ESNext, true);
  const at = [];
  const visit = (node) => {
    const mods = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
    for (const m of mods || []) {
      if (m.kind === ts.SyntaxKind.PrivateKeyword) at.push(m.getStart(sf));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (at.length === 0) return null;
  let out = "", last = 0;
  for (const p of at.sort((a, b) => a - b)) {
    out += text.slice(last, p) + "public ";
    last = p + "private".length;
  }
  return out + text.slice(last);
}
readline.createInterface({ input: process.stdin, terminal: false }).on("line", (line) => {
  let req;
  try { req = JSON.parse(line); } catch (e) { answer({ id: -1, error: "a request that is not JSON" }); return; }
  try {
    const text = String(req.text), fileName = String(req.fileName);
    const plain = emit(text, fileName);
    const openText = opened(text, fileName);
    const open = openText === null ? null : emit(openText, fileName);
    answer({ id: req.id, dts: plain.dts, open: open && open.dts, codes: plain.codes.concat(open ? open.codes : []) });
  } catch (e) {
    answer({ id: req.id, error: String(e && e.message || e) });
  }
});
