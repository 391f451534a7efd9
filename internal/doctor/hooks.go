package doctor

import (
	"fmt"
	"os"
	"strings"

	"github.com/anvil-dev/anvil/internal/hooks"
)

// GroupHooks is the group of the checks of other agents' hooks.
const GroupHooks = "hooks"

// checkHooks says, per client and scope, whether Anvil's hooks guard the
// client's edits: not installed is only information; installed hooks
// whose binary is gone and settings that do not parse are warnings;
// Codex's need of trust (it skips untrusted hooks silently) is said.
func checkHooks(dir string, getenv func(string) string) []Check {
	var out []Check
	for _, c := range hooks.Clients {
		for _, s := range []hooks.Scope{hooks.Project, hooks.User} {
			in := hooks.Inspect(c, s, dir, getenv)
			ch := Check{Group: GroupHooks, Name: fmt.Sprintf("%s (%s)", c, s), Status: OK}
			switch {
			case in.Err != nil:
				ch.Status, ch.Detail = Warn, fmt.Sprintf("%s: %v", in.Path, in.Err)
				ch.Fix = "fix the file's JSON, then 'anvil hooks install " + string(c) + "'"
			case len(in.Commands) == 0:
				ch.Detail = "not guarded (anvil hooks install " + string(c) + scopeFlag(s) + ")"
			default:
				ch.Detail = "guarded: Anvil's hooks are in " + in.Path
				if gone := missingBinaries(in.Commands); gone != "" {
					ch.Status, ch.Detail = Warn, ch.Detail+"; they run "+gone+", which is not there"
					ch.Fix = "anvil hooks install " + string(c) + scopeFlag(s)
				} else if in.Outdated != "" {
					ch.Status, ch.Detail = Warn, ch.Detail+"; they are "+in.Outdated
					ch.Fix = "anvil hooks install " + string(c) + scopeFlag(s)
				} else if c == hooks.Codex {
					ch.Detail += "; Codex runs them only once you trust them (/hooks in codex), skipping them silently until then"
				}
			}
			out = append(out, ch)
		}
	}
	return out
}

func scopeFlag(s hooks.Scope) string {
	if s == hooks.User {
		return " --scope user"
	}
	return ""
}

func missingBinaries(cmds []string) string {
	var gone []string
	for _, cmd := range cmds {
		b := hooks.Binary(cmd)
		if _, err := os.Stat(b); err != nil && b != "" && !strings.Contains(strings.Join(gone, "\x00"), b) {
			gone = append(gone, b)
		}
	}
	return strings.Join(gone, ", ")
}
