package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An edit the client matches loosely (Gemini CLI's replace, OpenCode's
// edit, with an old string that is in the file only up to whitespace)
// cannot be computed before it is written: the pre-edit hook lets it
// through saying the file is checked after, the client writes what its
// own matcher makes of it, and the post-edit hook hands the model the
// errors the file as written brings in (its own and its importers'),
// once; a loose edit that breaks nothing gets no word.
func TestHookPostEditChecksALooseMatchAsWritten(t *testing.T) {
	for _, client := range []string{"gemini", "opencode"} {
		t.Run(client, func(t *testing.T) {
			e := newHookEnv(t)
			install := exec.Command(filepath.Join(binDir, "anvil"), "hooks", "install", "-C", e.ws, client)
			install.Env = e.vars
			if out, err := install.CombinedOutput(); err != nil {
				t.Fatalf("anvil hooks install: %v\n%s", err, out)
			}
			// What the written edit breaks in its importers is what the
			// test asks for, not the hook's bound: on a loaded machine the
			// first check (a cold server) ran past the default 20 s's
			// share, and the hook rightly said only the changed files
			// were checked. The bound is the test's deadline.
			bound := hookBoundUntilDeadline(t)
			session := "s-" + client
			abs := filepath.Join(e.ws, "src/a.ts")
			call := func(old, new string) map[string]any {
				in := map[string]any{"session_id": session, "cwd": e.ws, "hook_event_name": "BeforeTool", "tool_name": "replace",
					"tool_input": map[string]any{"file_path": abs, "old_string": old, "new_string": new, "instruction": "edit"}}
				if client == "opencode" {
					in["tool_name"] = "edit"
					in["tool_input"] = map[string]any{"filePath": abs, "oldString": old, "newString": new}
				}
				return in
			}
			post := map[string]any{"session_id": session, "cwd": e.ws, "hook_event_name": "AfterTool", "tool_name": "replace",
				"tool_input": map[string]any{"file_path": abs}}
			if client == "opencode" {
				post["tool_input"] = map[string]any{"filePath": abs}
			}
			if r := e.hook(t, "session-start", client, map[string]any{"session_id": session, "cwd": e.ws, "hook_event_name": "SessionStart"}); r.code != 0 {
				t.Fatalf("session start: %+v", r)
			}
			// Nothing kept: the post-edit hook answers at once, with nothing.
			if ctx, msg := postEditAnswer(t, client, e.hook(t, "post-edit", client, post, bound...)); ctx != "" || msg != "" {
				t.Errorf("a post-edit with no loose edit before it: context %q, message %q", ctx, msg)
			}

			// Two spaces where the file has one: only a loose match finds it.
			r := e.hook(t, "pre-edit", client, call("export const one:  number = 1;", `export const one: string = "1";`))
			if r.code != 0 || !strings.Contains(r.stdout, "checks the file as written") {
				t.Fatalf("pre-edit of a loose match: %+v", r)
			}
			if client == "opencode" && !strings.Contains(r.stdout, `"anvilCheckAfter":true`) {
				t.Errorf("the plugin is not asked to check after the edit: %s", r.stdout)
			}
			e.write(t, "src/a.ts", "export const one: string = \"1\";\n") // what the client's matcher wrote
			ctx, msg := postEditAnswer(t, client, e.hook(t, "post-edit", client, post, bound...))
			if !strings.Contains(ctx, "matched loosely") || !strings.Contains(ctx, "src/b.ts") || !strings.Contains(ctx, "[2322]") {
				// The message says why, when the check gave no verdict.
				t.Errorf("the importer the written edit breaks is not handed to the model: %q (message %q)", ctx, msg)
			}
			// Once: the next post-edit has nothing left to check.
			if ctx, _ := postEditAnswer(t, client, e.hook(t, "post-edit", client, post, bound...)); ctx != "" {
				t.Errorf("the same edit was reported twice: %q", ctx)
			}

			// A loose edit that breaks nothing: no word for the model.
			r = e.hook(t, "pre-edit", client, call(`export const one:  string = "1";`, "export const one: number = 1;"))
			if r.code != 0 || !strings.Contains(r.stdout, "checks the file as written") {
				t.Fatalf("pre-edit of a loose match: %+v", r)
			}
			e.write(t, "src/a.ts", "export const one: number = 1;\n")
			if ctx, _ := postEditAnswer(t, client, e.hook(t, "post-edit", client, post, bound...)); ctx != "" {
				t.Errorf("a loose edit that fixes the importer was reported: %q", ctx)
			}
		})
	}
}

// postEditAnswer reads a post-edit answer: the context for the model (in
// Gemini CLI's AfterTool output, or the plugin's additionalContext) and
// the note for the user.
func postEditAnswer(t *testing.T, client string, r hookRun) (context, message string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("post-edit: exit %d (stdout %q, stderr %q)", r.code, r.stdout, r.stderr)
	}
	if strings.TrimSpace(r.stdout) == "" {
		if client == "gemini" {
			t.Fatalf("gemini: no JSON on stdout")
		}
		return "", ""
	}
	var out struct {
		Decision      string `json:"decision"`
		SystemMessage string `json:"systemMessage"`
		Context       string `json:"additionalContext"`
		Specific      struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%s: stdout is not one JSON object: %v\n%s", client, err, r.stdout)
	}
	if out.Decision != "" {
		t.Errorf("%s: a post-edit hook decided %q: the file is written, nothing is refused", client, out.Decision)
	}
	if client == "gemini" {
		if out.Specific.Context != "" && out.Specific.Event != "AfterTool" {
			t.Errorf("gemini: hookEventName %q", out.Specific.Event)
		}
		return out.Specific.Context, out.SystemMessage
	}
	return out.Context, out.SystemMessage
}

// hookBoundUntilDeadline is a hook's --timeout reaching the test binary's
// deadline (less the margin to report), for tests whose subject is not
// the hook's bound.
func hookBoundUntilDeadline(t *testing.T) []string {
	d, ok := t.Deadline()
	if !ok {
		return nil
	}
	return []string{"--timeout", time.Until(d.Add(-deadlineMargin)).Round(time.Second).String()}
}
