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
//	an import nothing resolves depends on every        | a file the resolver cannot place may still reach any file            | TestCutoff ("virtual:generated")
//	  interface change of its language                 |                                                                      |
//	a change reaches an importer only through an       | TypeScript's builder re-checks an importer only when the declaration | TestCutoff, shadow: TestCutoffHeldToBatchChecker,
//	  export whose interface changed (cutoff.go)       |   emit changed; an importer's types are a function of the shapes     |   TestCutoffMutationsHeldToBatchChecker,
//	                                                   |   it imports                                                         |   TestCutoffAsksTheCompiler
//	a file whose exports cannot be told apart (no      | CommonJS, export =, a module-wide statement change every export     | TestCutoffSaysWhyAFileIsOpaque
//	  parse, CommonJS, export =) is opaque: every      |                                                                      |
//	  export changed                                   |                                                                      |
//	effects outside the imports (a script, declare     | globals and augmentations are seen by files that import nothing of   | TestCutoffSaysWhyAFileIsOpaque,
//	  global/module, triple-slash, __builtins__.pyi)   |   the changed file                                                   |   shadow: TestCutoffHeldToBatchChecker
//	  reach every file of the language                 |                                                                      |
//	C/C++: every includer, transitively, no cut-off;   | the compiler reads an included file's text in place, whatever its    | TestIncludeGraph
//	  a header nothing is seen to include, or an       |   extension; -include forces a file in before the first line         |
//	  include nothing resolves, reaches every C/C++    |                                                                      |
//	  file (includes.go)                               |                                                                      |
//	a dependant outside the project's own checks is    | tsc and pyright do not check what their configuration leaves out    | shadow: TestScopeIsTheProjects
//	  checked only when it imports a change itself     |                                                                      |
package reach
