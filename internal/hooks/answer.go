package hooks

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/anvil-dev/anvil/internal/shadow"
)

// Input is what a client sends a hook on stdin (the fields Anvil reads;
// Claude Code, Codex CLI and Gemini CLI share these names, and Anvil's
// OpenCode plugin sends them too; Copilot CLI's are read by ParseInput).
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	Event          string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	StopHookActive bool            `json:"stop_hook_active"`
}

// ParseInput reads a hook's input: the shared names, or Copilot CLI's
// (sessionId, toolName, and toolArgs, the tool's arguments as a JSON
// string or object).
func ParseInput(data []byte) (Input, error) {
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("the hook's input is not the client's JSON: %w", err)
	}
	var cp struct {
		SessionID string          `json:"sessionId"`
		ToolName  string          `json:"toolName"`
		ToolArgs  json.RawMessage `json:"toolArgs"`
	}
	_ = json.Unmarshal(data, &cp)
	in.SessionID = cmpOr(in.SessionID, cp.SessionID)
	in.ToolName = cmpOr(in.ToolName, cp.ToolName)
	if len(in.ToolInput) == 0 && len(cp.ToolArgs) > 0 {
		in.ToolInput = cp.ToolArgs
		var s string
		if json.Unmarshal(cp.ToolArgs, &s) == nil && json.Valid([]byte(s)) {
			in.ToolInput = json.RawMessage(s)
		}
	}
	return in, nil
}

// Answer is what a hook tells its client.
type Answer struct {
	// Deny refuses the edit (pre-edit) or the end of the turn (stop),
	// with Reason for the model.
	Deny   bool
	Reason string
	// Context is for the model alongside an edit let through (the
	// importers it breaks), where the client carries it.
	Context string
	// Message is for the user (an edit let through unverified, a bound
	// reached).
	Message string
	// Unverified says the answer lets the client go on without evidence
	// (a turn not checked, or checked only in part), for those who read
	// answers as data (the gate fuzzer); the client sees only Message.
	Unverified bool
	// CheckAfter asks the client's post-tool hook to check the file the
	// edit writes (an edit Anvil could not compute before: see
	// pending.go). Only Anvil's OpenCode plugin reads it; Gemini CLI's
	// post-tool hook runs after every replace.
	CheckAfter bool
}

// allow lets the client go on, saying why to the user.
func allow(format string, args ...any) Answer {
	return Answer{Message: "Anvil: " + fmt.Sprintf(format, args...)}
}

// notVerified lets the client go on without evidence, saying why.
func notVerified(format string, args ...any) Answer {
	a := allow(format, args...)
	a.Unverified = true
	return a
}

// Write gives the answer to client c as its hook for verb expects, and
// returns the exit status. Only a refusal ever exits 2, and only for
// Codex's pre-edit hook, which reads its reason from stderr; everything
// else exits 0 with JSON on stdout (Claude Code takes exit 1 as a broken
// hook and goes on; Gemini CLI parses stdout as JSON and nothing else).
func (a Answer) Write(c Client, verb string, stdout, stderr io.Writer) int {
	out := map[string]any{}
	if a.Message != "" {
		out["systemMessage"] = a.Message
	}
	switch {
	case a.Deny && verb == VerbPreEdit && c == Codex:
		fmt.Fprintln(stderr, a.Reason)
		return 2
	case a.Deny && verb == VerbPreEdit && c == Claude:
		out["hookSpecificOutput"] = map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": a.Reason}
	case a.Deny && c == Gemini:
		out["decision"], out["reason"] = "deny", a.Reason
	case a.Deny && verb == VerbPreEdit && c == Copilot:
		out["permissionDecision"], out["permissionDecisionReason"] = "deny", a.Reason
	case a.Deny:
		out["decision"], out["reason"] = "block", a.Reason
	case a.Context != "" && verb == VerbPostEdit && c == Gemini:
		out["hookSpecificOutput"] = map[string]any{"hookEventName": "AfterTool", "additionalContext": a.Context}
	case a.Context != "" && (c == OpenCode || c == Copilot):
		out["additionalContext"] = a.Context
	case a.Context != "" && verb == VerbPreEdit && c != Gemini:
		out["hookSpecificOutput"] = map[string]any{"hookEventName": "PreToolUse", "additionalContext": a.Context}
	case a.Context != "" && verb == VerbSessionStart && c != Gemini:
		out["hookSpecificOutput"] = map[string]any{"hookEventName": "SessionStart", "additionalContext": a.Context}
	case a.Context != "":
		// Gemini CLI's BeforeTool cannot carry context to the model: the
		// user sees it, and the end-of-turn check tells the model.
		if a.Message != "" {
			a.Context = a.Message + "\n" + a.Context
		}
		out["systemMessage"] = a.Context
	}
	if a.CheckAfter && c == OpenCode {
		out["anvilCheckAfter"] = true
	}
	if len(out) == 0 && c != Gemini {
		return 0
	}
	data, _ := marshalRaw(out)
	fmt.Fprintf(stdout, "%s\n", data)
	return 0
}

// Bounds of what a refusal lists.
const (
	maxListed     = 8
	maxReasonSize = 4000
)

// listDiags writes diagnostics with their source lines, at most
// maxListed, saying how many more there are.
func listDiags(b *strings.Builder, ds []shadow.Diag) {
	for i, d := range ds {
		if i == maxListed || b.Len() > maxReasonSize {
			fmt.Fprintf(b, "… and %d more.\n", len(ds)-i)
			return
		}
		fmt.Fprintf(b, "%s\n", d)
		if t := strings.TrimSpace(d.LineText); t != "" {
			if len(t) > 200 {
				t = t[:200] + "…"
			}
			fmt.Fprintf(b, "    %s\n", t)
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
