package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaTuner is implemented by tools whose params need more than struct
// tags can say (enums, numeric bounds). It edits the inferred schema once,
// when the tool is adapted.
type SchemaTuner interface {
	TuneSchema(s *jsonschema.Schema)
}

// Adapt turns a typed tool into a [Tool]. The schema is inferred from P's
// json and jsonschema tags; fields without omitempty are required. It panics
// if P cannot be described as a JSON schema, which is a programming error
// caught by every test that builds the tool set.
func Adapt[P any](t Typed[P]) Tool {
	s, err := jsonschema.For[P](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", t.Name(), err))
	}
	if tuner, ok := t.(SchemaTuner); ok {
		tuner.TuneSchema(s)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tools: resolve schema for %s: %v", t.Name(), err))
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: marshal schema for %s: %v", t.Name(), err))
	}
	return &adapted[P]{typed: t, schema: resolved, raw: portableSchema(raw)}
}

type adapted[P any] struct {
	typed  Typed[P]
	schema *jsonschema.Resolved
	raw    json.RawMessage
}

func (a *adapted[P]) Name() string                 { return a.typed.Name() }
func (a *adapted[P]) Description() string          { return a.typed.Description() }
func (a *adapted[P]) InputSchema() json.RawMessage { return a.raw }

func (a *adapted[P]) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	var generic any
	if err := json.Unmarshal(args, &generic); err != nil {
		return Errorf("invalid arguments for %s: not valid JSON (%v); send a JSON object matching the tool's schema", a.Name(), err), nil
	}
	if _, ok := generic.(map[string]any); !ok {
		return Errorf("invalid arguments for %s: expected a JSON object, got %s", a.Name(), jsonKind(generic)), nil
	}
	if err := a.schema.Validate(generic); err != nil {
		return Errorf("invalid arguments for %s: %s", a.Name(), cleanValidationError(err)), nil
	}
	var params P
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&params); err != nil {
		return Errorf("invalid arguments for %s: %v", a.Name(), err), nil
	}
	return a.typed.Run(ctx, params)
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

// cleanValidationError trims the validator's schema-internal prefixes so the
// model reads what is wrong with its arguments, not where in the schema.
func cleanValidationError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "validating root: ")
	msg = strings.ReplaceAll(msg, "validating /properties/", "")
	// Bounds come out as rationals ("minimum: 0/1 is less than 1.000000").
	msg = boundRE.ReplaceAllString(msg, "$2 is below the minimum, $3")
	msg = upperBoundRE.ReplaceAllString(msg, "$2 is above the maximum, $3")
	return msg
}

var (
	boundRE      = regexp.MustCompile(`(minimum): (-?[\d.]+)(?:/1)? is less than (-?\d+)(?:\.0+)?`)
	upperBoundRE = regexp.MustCompile(`(maximum): (-?[\d.]+)(?:/1)? is greater than (-?\d+)(?:\.0+)?`)
)

// portableSchema rewrites the inferred schema into the form every provider
// and client accepts: "additionalProperties": false rather than
// {"not": {}}, and one type where the inference allows null beside it (a
// Go slice, map or pointer): some dialects take a single type only. The
// arguments are still validated against the inferred schema, so a caller
// that sends null for an optional field is not refused.
func portableSchema(raw []byte) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	v = rewriteFalseSchemas(v)
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

func rewriteFalseSchemas(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if k == "additionalProperties" {
				if m, ok := sub.(map[string]any); ok && len(m) == 1 {
					if not, ok := m["not"].(map[string]any); ok && len(not) == 0 {
						x[k] = false
						continue
					}
				}
			}
			if k == "type" {
				if ts, ok := sub.([]any); ok && len(ts) == 2 && (ts[0] == "null" || ts[1] == "null") {
					if ts[0] == "null" {
						x[k] = ts[1]
					} else {
						x[k] = ts[0]
					}
					continue
				}
			}
			x[k] = rewriteFalseSchemas(sub)
		}
		return x
	case []any:
		for i := range x {
			x[i] = rewriteFalseSchemas(x[i])
		}
		return x
	default:
		return v
	}
}
