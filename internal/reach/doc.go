// Package reach decides which files a change can break: the dependants a
// validation must check beside the changed files, and why. Its one entry
// point is Graph.Dependants(ctx, files, changes, limit); package shadow
// turns a change set into groups, checks them and pairs the answers, and
// asks this package only which files to check.
//
// The rules, each with the checker behaviour that makes it sound and the
// test that holds it (ARCHITECTURE.md, "Dependants, chosen per server" and
// "Early cut-off", says the same at length):
//
//	rule                                              | checker behaviour that backs it                                      | regression test
//	--------------------------------------------------|----------------------------------------------------------------------|------------------------------------------
//	importers are the reverse of resolved imports      | tsc and pyright resolve a specifier to one file (paths, baseUrl,     | shadow: TestDependantsAsTheCompilerResolves
//	  (package resolve), transitively, nearest first   |   rootDirs, workspace packages, Python import roots)                 |
//	TypeScript's own record adds its resolved imports  | the compiler's program (forEachResolvedModule) on the disk and, for  | shadow: TestDependantsTheCompilerRecorded;
//	  (records.go); a project it cannot record may     |   a created/deleted file or a JSON change, on the changed tree; npm  |   tsdecl: TestImportsAsTheCompilerResolves
//	  import anything                                  |   links a local package under node_modules by any name              |
//	a later disk state of the record's shape (the same | TypeScript resolves a specifier by the files there are and the      | TestTypeScriptRecordKeptForLaterStatesOf…
//	  files, the same JSON) keeps the record; the      |   configuration, not by other files' contents: an unchanged file's   |   TheSameShape
//	  files changed since may import anything          |   resolutions stand; a changed one may import something new         |
//	a pass's resolution is kept for the next over the  | resolution reads the paths there are, package.json, pyproject.toml,  | TestResolverKeptForTheSameStateOnly,
//	  same paths, JSON and TOML, and project files     |   pyrightconfig.json and each tsconfig with its extends chain        |   tsconfig.TestProjectsSeeABaseChange
//	  (their extends chains) as they were              |                                                                      |
//	where the compiler loads the first of several      | which is first depends on moduleSuffixes, a .d.ts beside its         | resolve: TestECMAEveryCandidate; shadow:
//	  files, every one that exists is a target         |   .js, paths' order, the resolution mode (types, typesVersions,      |   TestCutoffHeldToBatchChecker (ts/moduleSuffixes,
//	  (Anvil's resolution may add, never drop)         |   exports) and on the files a change creates                         |   ts/a declaration file beside its JavaScript)
//	Python: the importing file's folder and the stub   | pyright tries an absolute import from the importing file's folder    | resolve: TestPython; shadow: TestCutoffHeld…
//	  path (typings) are import roots too              |   (a script's folder is on sys.path) and from stubPath               |   (py/a module from the importing script's own folder)
//	an import nothing resolves depends on every        | a file the resolver cannot place may still reach any file            | TestCutoff ("virtual:generated")
//	  interface change of its language                 |                                                                      |
//	so does a source file too large to read for its    | the compiler reads a file of any size; its imports (and the record   | TestAFileTooLargeToScanMayImportAnything
//	  imports (2 MiB; JSON imports nothing)            |   of them) were never taken                                          |
//	a Go file that does not parse hides only errors a  | gopls reports no type error of a file with a parse error, and a     | TestGoPackagesReaching, shadow:
//	  change can add in packages that are, or import,  |   change's type errors are in its package and its importers'        |   TestAFileThatDoesNotParseElsewhere
//	  a changed one (GoPackagesReaching; each file in  |   (import clauses read alone; unreadable ones reach everything)      |
//	  its nearest go.mod's module, an import of        |   (go help packages: ./... skips testdata and . or _ names; so do    |
//	  another module reaching everything; no go.work   |   go build, go vet and gopls's view of the module; a module's        |
//	  or replace; testdata, ., _ skipped as the go     |   import path names its own tree, another module's only through a    |
//	  command skips them, else every package)          |   require, a replace or a go.work)                                   |
//	a change reaches an importer only through an       | TypeScript's builder re-checks an importer only when the declaration | TestCutoff, shadow: TestCutoffHeldToBatchChecker,
//	  export whose interface changed (cutoff.go)       |   emit changed; an importer's types are a function of the shapes     |   TestCutoffMutationsHeldToBatchChecker,
//	                                                   |   it imports                                                         |   TestCutoffAsksTheCompiler
//	a change set whose every file (TS/JS/Python, edited | from an empty set of changed exports the propagation reaches no     | TestOnlyAChangeThatKeepsEveryInterface…
//	  in place, not installed, no global effect) keeps  |   importer, not even one whose import nothing resolves               |   SkipsTheGraph, TestCutoff
//	  every interface has no dependant; the graph is    |                                                                      |
//	  not built (interfacesKept; InterfacesKept tells   |                                                                      |
//	  a caller that leaves the dependants whether there |                                                                      |
//	  are any to leave: the pre-edit hook)              |                                                                      |
//	type-only modifiers of exports, re-exports and     | a type-only export used as a value is TS1362; through a type-only    | syntax: TestSurfaceTypeOnly; shadow: TestCutoffHeld…
//	  imports are interface                            |   import, TS1361                                                     |   (ts/an export made type-only, ts/a re-export …)
//	the declaration emit is compared a second time     | the emit writes `private x;` without its type, which an importer     | tsdecl: TestEmitPrivateMembers; shadow:
//	  with the private members made public             |   reads through new A()["x"]; tsc --incremental misses it            |   TestCutoffAsksTheCompiler, TestCutoffHeld…
//	  (declarationChanges)                             |                                                                      |   (ts/a private member's type …)
//	a Python string's words (docstrings excepted)      | pyright reads a string annotation, a forward reference, a bound=     | syntax: TestSurfacePythonStringAnnotation;
//	  are references of a shape                        |   string as a type                                                   |   shadow: TestCutoffHeld… (py/a string annotation …)
//	a file whose exports cannot be told apart (no      | CommonJS, export =, a module-wide statement change every export     | TestCutoffSaysWhyAFileIsOpaque
//	  parse, CommonJS, export =) is opaque: every      |                                                                      |
//	  export changed                                   |                                                                      |
//	effects outside the imports (a script, declare     | globals and augmentations are seen by files that import nothing of   | TestCutoffSaysWhyAFileIsOpaque,
//	  global/module, triple-slash, __builtins__.pyi)   |   the changed file, an installed package's declarations among them   |   shadow: TestCutoffHeldToBatchChecker;
//	  reach every file of the language (Global: shadow |   (tsc reports their clash there, with no skipLibCheck)              |   cmd/anvil: ts_global_breaks_installed
//	  sends TypeScript's to the project's tsc)         |                                                                      |
//	C/C++: every includer, transitively, no cut-off;   | the compiler reads an included file's text in place, whatever its    | TestIncludeGraph,
//	  a header nothing is seen to include, or an       |   extension; -include forces a file in before the first line, and    |   TestIncludedChanged
//	  include nothing resolves, reaches every C/C++    |   -imacros reads a file's macros in                                  |
//	  file; a unit reads every changed file once an    |                                                                      |
//	  include on its way names none (includes.go:      |                                                                      |
//	  IncludedChanged, which shadow's compiles use)    |                                                                      |
//	a changed file the scan leaves out (ignored,       | the checker reads an ignored generated file like any other; who      | TestChangesOutsideTheScan,
//	  installed) is a node of the graph; an installed  |   imports an installed package's file is the resolver's, not ours   |   shadow: TestChangesOutsideTheScanAreChecked
//	  package's file reaches every file of its language |                                                                      |
//	a changed file of no language an include resolves | the preprocessor reads an included file's text whatever its name     | shadow: TestIncludedFileOfAnyNameIsCode;
//	  to (colors.def), or any while an include nothing |   (an X-macro list), also one a macro names (#include LIST)          |   cmd/anvil: c_include_macro_fragment
//	  resolves exists, is C/C++: its includers (and    |                                                                      |
//	  the untraced ones) are its dependants            |                                                                      |
//	a directive is read after phases 1–3 as well as    | a comment is one space, %: and ??= spell #, a splice joins lines     | compiledb: TestIncludeSpecsReadWhatThe…
//	  raw (compiledb.IncludeSpecs)                     |   (C11 5.1.1.2); gcc -M -MG lists what is read                       |   Preprocessor; cmd/anvil: c_include_spellings
//	the compilers' record of what each unit reads      | the preprocessor's dependency file (-M -MG) lists every file a unit  | TestDependantsTakeTheCompilersRecord; shadow:
//	  (crecords.go) adds its includers, as pyright's   |   read, whatever the directive's spelling or a macro's value         |   TestCIncludesAsTheCompilerReads,
//	  adds importers (keptrecord.go)                   |                                                                      |   TestTheCompilersRecordAddsIncluders
//	a unit whose command names a response file Anvil   | a response file may hold -include, which forces any file in          | TestIncludeGraph (src/rsp.c);
//	  does not read depends on every C/C++ change      |                                                                      |   cmd/anvil: c_forced_unread
//	  (ForcesUnknown)                                  |                                                                      |
//	(shadow) a file a tsconfig's or pyright config's   | tsc and pyright merge every file of the chain into the project's     | shadow: TestExtendedTSConfigIsConfiguration,
//	  extends chain names is configuration of the      |   options                                                            |   TestExtendedPyrightConfigIsConfiguration,
//	  project, never "not code"                        |                                                                      |   tsconfig.TestExtended, pyconfig.TestExtended
//	a file a //go:embed pattern names (EmbeddedBy) is  | the go command reads embedded files to build the package; a deleted  | TestEmbeddedBy, shadow: TestEmbeddedFileIsRead
//	  read by the go command, never "not code"         |   one fails it ("no matching files found")                           |
//	a Go package's assembly or object file, and a      | the go command assembles .s/.S/.sx and links .syso into the package  | TestGoCommandReads, shadow:
//	  vendor/modules.txt (GoCommandReads), is read by   |   (go vet's asmdecl reads the frames); modules.txt must agree with   |   TestGoCommandInputsAreRead
//	  the go command, never "not code"                  |   go.mod; gopls checks neither                                       |
//	(servers) a compile database, .clangd, cargo's     | the compiler takes its flags (a define, an include directory) from   | servers: TestConfigLanguage; shadow: TestValidateC
//	  .cargo/config.toml and rust-toolchain files are  |   the database; cargo its rustflags and cfgs from .cargo/config      |   (a change to compile_commands.json …),
//	  configuration of their language                   |                                                                      |   TestValidateCargoWorkspace (cargo's configuration)
//	a dependant outside the project's own checks is    | tsc and pyright do not check what their configuration leaves out    | shadow: TestScopeIsTheProjects
//	  checked only when it imports a change itself     |                                                                      |
package reach
