package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type boundedParams struct {
	N int `json:"n" jsonschema:"a count"`
}

type bounded struct{}

func (bounded) Name() string        { return "bounded" }
func (bounded) Description() string { return "takes n between 1 and 10" }
func (bounded) Run(context.Context, boundedParams) (Result, error) {
	return Result{Output: "ok"}, nil
}
func (bounded) TuneSchema(s *jsonschema.Schema) {
	lo, hi := 1.0, 10.0
	s.Properties["n"].Minimum, s.Properties["n"].Maximum = &lo, &hi
}

// Validation errors read as plain sentences about the argument.
func TestValidationMessages(t *testing.T) {
	tool := Adapt[boundedParams](bounded{})
	for args, want := range map[string]string{
		`{"n":0}`:   "n: 0 is below the minimum, 1",
		`{"n":11}`:  "n: 11 is above the maximum, 10",
		`{"n":"x"}`: `n: type: x has type "string", want "integer"`,
		`{}`:        `missing properties: ["n"]`,
	} {
		res := call(t, tool, args)
		if !res.IsError || !strings.Contains(res.Output, want) {
			t.Errorf("%s: %q, want %q", args, res.Output, want)
		}
	}
	if res := call(t, tool, `{"n":5}`); res.IsError {
		t.Errorf("valid arguments refused: %s", res.Output)
	}
	if !strings.Contains(string(tool.InputSchema()), `"additionalProperties":false`) {
		t.Errorf("schema: %s", tool.InputSchema())
	}
}
