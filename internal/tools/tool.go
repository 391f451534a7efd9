// Package tools holds the operations a model can call: reading, listing and
// searching files, structural and language-server queries, and (for the
// Executor) staging edits. The same tools serve every agent, the `anvil tool`
// command and any other front end.
//
// A tool is written as a typed struct with a Run method over its params type;
// [Adapt] turns it into the untyped [Tool] that dispatchers use, deriving the
// JSON schema from the params struct's tags and validating raw arguments
// against it before Run sees them.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// Result is what a tool returns to its caller.
type Result struct {
	// Output is the text the model reads.
	Output string
	// Data is the same result in structured form, for programs (--json,
	// renderers, tests). It may be nil.
	Data any
	// IsError marks a failure the model can fix (a bad path, an invalid
	// regex, a missing file). Infrastructure failures are Go errors instead.
	IsError bool
}

// Errorf returns a tool-error result: a message for the model, not a Go error.
func Errorf(format string, args ...any) Result {
	return Result{Output: fmt.Sprintf(format, args...), IsError: true}
}

// Tool is the untyped form every dispatcher sees.
type Tool interface {
	Name() string
	Description() string
	// InputSchema is the JSON schema of the arguments object.
	InputSchema() json.RawMessage
	// Call decodes and validates args and runs the tool. Malformed arguments
	// come back as a tool-error Result, not a Go error.
	Call(ctx context.Context, args json.RawMessage) (Result, error)
}

// Typed is what a tool implements: a name, a description and a Run over its
// own params struct P.
type Typed[P any] interface {
	Name() string
	Description() string
	Run(ctx context.Context, params P) (Result, error)
}
