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
// Imports: {"id", "kind": "imports", "config", "root", "overlay",
// "reuse"}, where overlay maps an absolute path to its text, or to null
// for a file deleted. The answer {"id", "imports"} maps each file of the
// project's program under root (outside node_modules) to the pairs
// [specifier, resolved file] of what TypeScript resolved for it into
// root: the compiler's own record of who reads what, on the tree the
// overlay makes. Parsed files are kept by path and text; resolution runs
// afresh unless "reuse" is set (see below), so a link or a file that
// appeared is seen.
const parsed = new Map();
const programs = new Map();
// canonical is p with every link resolved, for a path that may not exist:
// its nearest existing ancestor's real path, then the rest as given.
function canonical(p) {
  const fs = require("fs"), path = require("path");
  const rest = [];
  for (let dir = p; ; ) {
    try { return path.join(fs.realpathSync(dir), ...rest); } catch (e) { /* not there: one level up */ }
    const parent = path.dirname(dir);
    if (parent === dir) return p;
    rest.unshift(path.basename(dir));
    dir = parent;
  }
}
function imports(req) {
  const overlay = new Map(Object.entries(req.overlay || {}));
  const root = String(req.root).replace(/\/+$/, "") + "/";
  const inRoot = (p) => p.startsWith(root) && !p.slice(root.length).split("/").includes("node_modules");
  // The overlay names files by their real paths; the compiler may reach
  // one through a link (node_modules/lib → ../shared), so a path is
  // looked up as given and as its real path.
  const key = (p) => {
    if (overlay.size === 0) return undefined;
    if (overlay.has(p)) return p;
    const c = canonical(p);
    return overlay.has(c) ? c : undefined;
  };
  const exists = (p) => { const k = key(p); return k !== undefined ? overlay.get(k) !== null : ts.sys.fileExists(p); };
  const read = (p) => { const k = key(p); return k !== undefined ? (overlay.get(k) === null ? undefined : overlay.get(k)) : ts.sys.readFile(p); };
  const dirExists = (d) => {
    for (const dir of overlay.size === 0 ? [] : [d, canonical(d)]) {
      const prefix = dir.replace(/\/+$/, "") + "/";
      for (const [p, text] of overlay) if (text !== null && p.startsWith(prefix)) return true;
    }
    return ts.sys.directoryExists(d);
  };
  const realpath = (p) => key(p) || (ts.sys.realpath ? ts.sys.realpath(p) : p);
  const configHost = { ...ts.sys, fileExists: exists, readFile: read, directoryExists: dirExists, onUnRecoverableConfigFileDiagnostic: () => {} };
  const cmd = ts.getParsedCommandLineOfConfigFile(String(req.config), {}, configHost);
  if (!cmd) throw new Error("TypeScript cannot read " + req.config);
  const options = { ...cmd.options, noEmit: true };
  const host = ts.createCompilerHost(options, true);
  host.fileExists = exists;
  host.readFile = read;
  host.directoryExists = dirExists;
  host.realpath = realpath;
  // A parsed file is reused while its text is the same (compared whole:
  // two writes within one tick of the file system's clock keep size and
  // time).
  host.getSourceFile = (fileName, languageVersion) => {
    const text = read(fileName);
    if (text === undefined) return undefined;
    // What the parse depends on, not the whole options object: it also
    // holds the nearest package.json's contents, whose stringifying for
    // every file of a large project cost seconds a record. Whether a file
    // is a module (its setExternalModuleIndicator) follows the project's
    // moduleDetection, module and jsx, which two projects of one process
    // may set apart.
    const lv = typeof languageVersion === "object" && languageVersion !== null
      ? [languageVersion.languageVersion, languageVersion.impliedNodeFormat, languageVersion.jsDocParsingMode,
        options.moduleDetection, options.module, options.jsx].join(",")
      : String(languageVersion);
    const hit = parsed.get(fileName);
    if (hit && hit.text === text && hit.lv === lv) return hit.sf;
    const sf = ts.createSourceFile(fileName, text, languageVersion);
    parsed.set(fileName, { text, lv, sf });
    return sf;
  };
  // A file the overlay deletes is no root, though a pattern matched it on
  // disk.
  const roots = cmd.fileNames.filter((p) => !overlay.has(p) || overlay.get(p) !== null);
  const configDir = require("path").dirname(String(req.config)) + "/";
  for (const [p, text] of overlay) {
    if (text !== null && p.startsWith(configDir) && /\.(d\.)?[cm]?[tj]sx?$/.test(p) && !roots.includes(p)) roots.push(p);
  }
  // The program of the last disk request is reused when the caller says
  // no file was created or deleted and no JSON file changed since: then
  // only the changed files' imports can resolve otherwise, and TypeScript
  // resolves those again.
  const config = String(req.config);
  const old = !req.overlay && req.reuse ? programs.get(config) : undefined;
  const program = ts.createProgram({ rootNames: roots, options, host, projectReferences: cmd.projectReferences, oldProgram: old });
  if (!req.overlay) programs.set(config, program);
  const out = {};
  for (const sf of program.getSourceFiles()) {
    if (!inRoot(sf.fileName)) continue;
    const pairs = [];
    program.forEachResolvedModule((resolution, name) => {
      const target = resolution && resolution.resolvedModule && resolution.resolvedModule.resolvedFileName;
      if (target && inRoot(target)) pairs.push([name, target]);
    }, sf);
    // A file read through a triple-slash directive is read as much as an
    // imported one: `/// <reference path>` names a file (the program holds
    // it under the name given or with an extension added), `/// <reference
    // types>` a resolved package.
    for (const ref of sf.referencedFiles) {
      const base = ts.getNormalizedAbsolutePath(ref.fileName, ts.getDirectoryPath(sf.fileName));
      for (const t of [base, base + ".ts", base + ".tsx", base + ".d.ts"]) {
        if (inRoot(t) && program.getSourceFile(t)) pairs.push(["reference:" + ref.fileName, t]);
      }
    }
    program.forEachResolvedTypeReferenceDirective((resolution, name) => {
      const target = resolution && resolution.resolvedTypeReferenceDirective && resolution.resolvedTypeReferenceDirective.resolvedFileName;
      if (target && inRoot(target)) pairs.push(["types:" + name, target]);
    }, sf);
    if (pairs.length > 0) out[sf.fileName] = pairs;
  }
  if (parsed.size > 50000) { parsed.clear(); programs.clear(); }
  return out;
}
readline.createInterface({ input: process.stdin, terminal: false }).on("line", (line) => {
  let req;
  try { req = JSON.parse(line); } catch (e) { answer({ id: -1, error: "a request that is not JSON" }); return; }
  try {
    if (req.kind === "imports") {
      answer({ id: req.id, imports: imports(req) });
      return;
    }
    const text = String(req.text), fileName = String(req.fileName);
    const plain = emit(text, fileName);
    const openText = opened(text, fileName);
    const open = openText === null ? null : emit(openText, fileName);
    answer({ id: req.id, dts: plain.dts, open: open && open.dts, codes: plain.codes.concat(open ? open.codes : []) });
  } catch (e) {
    answer({ id: req.id, error: String(e && e.message || e) });
  }
});
