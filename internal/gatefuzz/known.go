package gatefuzz

// KnownOpen are the false cleans still open on main, by the constructs of
// the trials they show in ("a+b": a trial with both), each with its cause
// (issue 28's rows). A false clean of a trial with one of these is counted
// and printed as known; any other fails the sample. An entry goes when its
// fix lands: the sample then holds it.
func KnownOpen() map[string]string {
	return map[string]string{
		"ts/tsconfig-extends+ts/edit-config-strict": "a tsconfig.json's extends chain is no input of the gate (issue 28 row 4)",
		"ts/module-suffixes":                        "moduleSuffixes are not resolved (issue 28 row 5)",
		"ts/edit-create-shadowing":                  "a created file that takes over a module's name (issue 28 item 2)",
		"ts/edit-type-only-export":                  "type-only exports are not in the interface (issue 28 row 7)",
		"ts/member-private+ts/edit-retype":          "a private member's type is not in the interface (issue 28 row 8)",
		"ts/member-protected+ts/edit-retype":        "a protected member's type is not in the interface (issue 28 item 3)",
		"py/string-annotation-only+py/edit-retype":  "a string annotation is not read as a type (issue 28 row 9)",
		"py/edit-create-stub":                       "a stub created beside its source takes over what importers see (issue 28 item 2; found by this fuzzer)",
		"py/script-folder":                          "a script's own folder is not on the import path (issue 28 row 6)",
	}
}
