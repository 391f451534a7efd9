package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// OpenCode's and Copilot CLI's hooks are files of Anvil's own, which the
// install writes whole and the uninstall removes: OpenCode's plugin
// (.opencode/plugin/anvil.js), Copilot CLI's hooks file
// (.github/hooks/anvil.json). A file there that is not Anvil's is
// refused, never overwritten.

// opencodeMarker begins the plugin Anvil writes: what tells Anvil's
// plugin from a user's file of the same name.
const opencodeMarker = "// anvil-hooks: Anvil's gate for OpenCode"

// copilotEvents are Copilot CLI's events Anvil's hooks file answers.
var copilotEvents = []entry{
	{"sessionStart", "", VerbSessionStart},
	{"preToolUse", "", VerbPreEdit},
	{"agentStop", "", VerbStop},
}

// copilotHandler is a command of a Copilot CLI hooks file.
type copilotHandler struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	TimeoutSec int    `json:"timeoutSec"`
}

func installOwn(text []byte, c Client, bin string) ([]byte, error) {
	if len(bytes.TrimSpace(text)) > 0 && !isAnvilFile(text, c) {
		return nil, errors.New("the file is not Anvil's (it has no Anvil marker); move it away or remove it, then install again")
	}
	want := ownFile(c, bin)
	if bytes.Equal(text, want) {
		return text, nil
	}
	return want, nil
}

// uninstallOwn returns nil (the file goes) for Anvil's file.
func uninstallOwn(text []byte, c Client) ([]byte, error) {
	if len(bytes.TrimSpace(text)) == 0 || !isAnvilFile(text, c) {
		return text, nil
	}
	return nil, nil
}

func installedOwn(text []byte, c Client) ([]string, error) {
	if !isAnvilFile(text, c) {
		return nil, nil
	}
	if c == OpenCode {
		m := opencodeBinary.FindSubmatch(text)
		if m == nil {
			return nil, errors.New("Anvil's plugin names no anvil binary")
		}
		var bin string
		if err := json.Unmarshal(m[1], &bin); err != nil {
			return nil, err
		}
		return []string{Command(bin, VerbPreEdit, c)}, nil
	}
	var cmds []string
	for _, h := range copilotHandlers(text) {
		cmds = append(cmds, h.Bash)
	}
	return cmds, nil
}

var opencodeBinary = regexp.MustCompile(`(?m)^const anvil = ("(?:[^"\\]|\\.)*");$`)

// isAnvilFile reports whether a file at the client's path is Anvil's: the
// plugin by its first line, the hooks file by holding only Anvil's
// commands.
func isAnvilFile(text []byte, c Client) bool {
	if c == OpenCode {
		return bytes.HasPrefix(text, []byte(opencodeMarker))
	}
	hs := copilotHandlers(text)
	if len(hs) == 0 {
		return false
	}
	for _, h := range hs {
		if !IsAnvilCommand(h.Bash) {
			return false
		}
	}
	return true
}

func copilotHandlers(text []byte) []copilotHandler {
	var f struct {
		Hooks map[string][]copilotHandler `json:"hooks"`
	}
	if json.Unmarshal(text, &f) != nil {
		return nil
	}
	var out []copilotHandler
	for _, hs := range f.Hooks {
		out = append(out, hs...)
	}
	return out
}

// ownFile is the whole file of Anvil's hooks for client c.
func ownFile(c Client, bin string) []byte {
	if c == OpenCode {
		return opencodePlugin(bin)
	}
	hooks := newOrdered()
	for _, e := range copilotEvents {
		hooks.add(e.event, []copilotHandler{{Type: "command", Bash: Command(bin, e.verb, c), TimeoutSec: e.timeout(c)}})
	}
	root := newOrdered()
	root.add("version", 1)
	root.add("hooks", hooks)
	data, err := root.indented()
	if err != nil {
		panic(err) // strings and numbers only
	}
	return data
}

// opencodePlugin is Anvil's plugin for OpenCode, running bin. OpenCode
// has no hook that runs a command: the plugin runs 'anvil hook' as the
// other clients do, with the same JSON, and turns the answers into
// OpenCode's terms. An edit is refused by throwing from
// tool.execute.before (the message is the tool's result the model sees);
// what an edit breaks elsewhere is added to the tool's output. OpenCode
// has no end-of-turn hook that can refuse: when the model's message is
// text with no tool call (experimental.text.complete, which the loop
// waits for), the plugin runs the end-of-turn check, and if it refuses,
// adds its reason as a user message (noReply), so that the loop sees a
// newer user message and goes on instead of ending.
func opencodePlugin(bin string) []byte {
	binJSON, _ := marshalRaw(bin)
	timeouts := fmt.Sprintf(`{ %q: %d, %q: %d, %q: %d, %q: %d }`,
		VerbSessionStart, PreEditTimeoutSeconds+clientSlackSeconds,
		VerbPreEdit, PreEditTimeoutSeconds+clientSlackSeconds,
		VerbPostEdit, PreEditTimeoutSeconds+clientSlackSeconds,
		VerbStop, StopTimeoutSeconds+clientSlackSeconds)
	r := strings.NewReplacer("{{BIN}}", string(binJSON), "{{TIMEOUTS}}", timeouts, "{{EDITS}}", strconv.Quote(strings.Join(opencodeEditTools, ",")))
	return []byte(r.Replace(opencodePluginTemplate))
}

// opencodeEditTools are OpenCode's tools that write files.
var opencodeEditTools = []string{"edit", "write", "apply_patch", "multiedit"}

const opencodePluginTemplate = opencodeMarker + `, written by 'anvil hooks install opencode'
// ('anvil hooks uninstall opencode' removes it). Before each edit OpenCode
// makes, Anvil checks the files it would leave and refuses the edit when it
// brings new errors into them; at the end of a turn it checks everything the
// session changed, and tells the model what it left broken.
import { spawn } from "node:child_process";

const anvil = {{BIN}};
const bounds = {{TIMEOUTS}};
const edits = new Set({{EDITS}}.split(","));

// hook runs 'anvil hook VERB --client opencode' with input as JSON on its
// stdin, bounded, and returns its answer; whatever goes wrong lets OpenCode go on.
function hook(verb, input) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(anvil, ["hook", verb, "--client", "opencode"], { stdio: ["pipe", "pipe", "ignore"] });
    } catch (e) {
      resolve({});
      return;
    }
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try { resolve(out.trim() ? JSON.parse(out) : {}); } catch { resolve({}); }
    };
    // Past its bound the hook is killed and OpenCode goes on; a process
    // the hook started (Anvil's daemon) may hold its output open, so its
    // exit, not the end of its output, ends the wait.
    const timer = setTimeout(() => { child.kill("SIGKILL"); out = ""; finish(); }, bounds[verb] * 1000);
    child.stdout.on("data", (d) => { out += d; });
    child.on("error", () => { out = ""; finish(); });
    child.on("exit", () => setTimeout(finish, 200));
    child.on("close", finish);
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

// remember keeps value for a tool call until its after-hook takes it; a
// call whose after-hook never comes (the tool refused elsewhere, the
// session aborted) is forgotten once newer calls pile up past the bound.
const pendingBound = 256;
function remember(map, key, value) {
  map.set(key, value);
  while (map.size > pendingBound) map.delete(map.keys().next().value);
}

export const AnvilGate = async ({ client, directory }) => {
  const started = new Set();
  const refused = new Set();
  const context = new Map();
  const after = new Map();
  const base = (sessionID, event) => ({ session_id: sessionID, cwd: directory, hook_event_name: event });
  const start = async (sessionID) => {
    if (started.has(sessionID)) return;
    started.add(sessionID);
    await hook("session-start", base(sessionID, "SessionStart"));
  };
  return {
    "chat.message": async (input) => { await start(input.sessionID); },
    "tool.execute.before": async (input, output) => {
      if (!edits.has(input.tool)) return;
      await start(input.sessionID);
      const a = await hook("pre-edit", { ...base(input.sessionID, "PreToolUse"), tool_name: input.tool, tool_input: output.args });
      if (a.decision === "block") throw new Error(a.reason);
      if (a.additionalContext) remember(context, input.callID, a.additionalContext);
      if (a.anvilCheckAfter) remember(after, input.callID, output.args);
    },
    "tool.execute.after": async (input, output) => {
      let more = context.get(input.callID) ?? "";
      context.delete(input.callID);
      const args = after.get(input.callID);
      if (args !== undefined) {
        after.delete(input.callID);
        // An edit Anvil could not compute before it was written: the file
        // as written is checked now.
        const a = await hook("post-edit", { ...base(input.sessionID, "PostToolUse"), tool_name: input.tool, tool_input: args });
        if (a.additionalContext) more = more ? more + "\n\n" + a.additionalContext : a.additionalContext;
      }
      if (!more) return;
      output.output = (output.output ?? "") + "\n\n" + more;
    },
    "experimental.text.complete": async (input) => {
      const msg = await client.session.message({ path: { id: input.sessionID, messageID: input.messageID } }).catch(() => undefined);
      if ((msg?.data?.parts ?? []).some((p) => p.type === "tool")) return; // the turn goes on
      const a = await hook("stop", { ...base(input.sessionID, "Stop"), stop_hook_active: refused.has(input.sessionID) });
      if (a.decision !== "block") {
        refused.delete(input.sessionID);
        return;
      }
      refused.add(input.sessionID);
      await client.session.prompt({ path: { id: input.sessionID }, body: { noReply: true, parts: [{ type: "text", text: a.reason }] } });
    },
  };
};
`
