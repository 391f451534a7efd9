package setup

import "fmt"

// starter is one starter slash command. Its first line describes it (the
// list 'anvil --commands' shows); the text is the request, with $ARGS
// where the user's arguments go.
type starter struct{ name, text string }

func starterCommands(testCommand string) []starter {
	runTests := "Run them the way the project's other tests run."
	if testCommand != "" {
		runTests = fmt.Sprintf("The project's tests run with `%s`.", testCommand)
	}
	return []starter{
		{"review", `# Review code for bugs and type errors
Review $ARGS for bugs and type errors: wrong types, unhandled errors and
nil or undefined values, off-by-one mistakes, and edge cases the code does not
handle. For each problem, say where it is and why it is wrong, then fix it
with the smallest change that keeps the public API as it is. Leave code that
is correct alone.
`},
		{"document", `# Add documentation comments
Add documentation comments to the exported functions, types and constants in
$ARGS, in the comment style the project already uses. Say what each one does
and what a caller must know (errors, ownership, units, side effects) rather
than restating the signature. Change no code.
`},
		{"test", `# Write tests
Write tests for $ARGS covering the normal cases, the edge cases and the error
paths, following the layout, helpers and naming of the project's existing
tests. ` + runTests + `
`},
	}
}
