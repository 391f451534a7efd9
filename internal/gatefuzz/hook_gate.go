package gatefuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/hooks"
)

// HookGate asks the hooks as an agent's client does: a session starts,
// each changed file is written through the pre-edit hook as a Write call
// (and written to disk when the hook lets it through, as the client
// does; a refused one is tried again after the others), a deletion is made behind the hooks' back (a shell command), and
// the end of the turn asks the stop hook about the whole turn. A refusal
// of either hook rejects the edit; an end of the turn that says something
// was not verified leaves it unverified. The disk is put back after.
type HookGate struct {
	Gate *hooks.Gate
	// Dir is the workspace the client works in.
	Dir string
	// Stop releases what serves the hooks.
	Stop func()
	// AwaitQuiet, when set, makes each edit a rehearsed one: its files are
	// shown to the pre-edit hook, the answers dropped and nothing
	// written, and AwaitQuiet waits for what that started in the background,
	// twice over (the first showing starts TypeScript 7's proof, the
	// second, once the proof holds, its server's loading of the project)
	// before the edit is made as usual. A campaign over what the hooks do
	// only once that work is done (TypeScript 7 in place of a pinned
	// project's tsserver) sets it.
	AwaitQuiet func(ctx context.Context) error
	n          int
}

// Judge implements [Gate].
func (g *HookGate) Judge(ctx context.Context, edit Edit) (Judgement, error) {
	g.n++
	session := fmt.Sprintf("fuzz-%d", g.n)
	in := func(event string) hooks.Input { return hooks.Input{SessionID: session, Cwd: g.Dir, Event: event} }
	if a := g.Gate.SessionStart(ctx, in("SessionStart")); a.Unverified {
		return Judgement{}, errors.New(a.Message)
	}
	put, err := g.keep(edit)
	if err != nil {
		return Judgement{}, err
	}
	defer put()
	if err := g.rehearse(ctx, edit, in); err != nil {
		return Judgement{}, err
	}
	refused, err := g.write(ctx, edit, in)
	if err != nil {
		return Judgement{}, err
	}
	stop := g.Gate.Stop(ctx, in("Stop"))
	switch {
	case stop.Deny:
		refused = append(refused, "stop: "+stop.Reason)
	case len(refused) == 0 && stop.Unverified:
		return Judgement{Verdict: "unverified", Why: strings.TrimPrefix(stop.Message, "Anvil: ")}, nil
	}
	if len(refused) > 0 {
		return Judgement{Verdict: "rejected", New: refused}, nil
	}
	return Judgement{Verdict: "clean"}, nil
}

// write makes the edit's changes as an agent does: deletions first,
// behind the hooks' back, then each file through the pre-edit hook. A
// refused write is tried again after the others, as an agent that reads
// the refusal does, since a turn's files depend on each other (a module's
// user before the module's file); what the hook still refuses when a round
// writes nothing more is the turn's refusal.
func (g *HookGate) write(ctx context.Context, edit Edit, in func(string) hooks.Input) ([]string, error) {
	var pending []string
	for _, p := range edit.Paths() {
		if edit[p] != nil {
			pending = append(pending, p)
			continue
		}
		if err := os.Remove(filepath.Join(g.Dir, filepath.FromSlash(p))); err != nil {
			return nil, err
		}
	}
	for {
		var refused, left []string
		for _, p := range pending {
			abs := filepath.Join(g.Dir, filepath.FromSlash(p))
			c := *edit[p]
			if a := g.preEdit(ctx, in, p, c); a.Deny {
				refused = append(refused, "pre-edit of "+p+": "+a.Reason)
				left = append(left, p) // the client does not write it
				continue
			}
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
				return nil, err
			}
		}
		if len(left) == 0 || len(left) == len(pending) {
			return refused, nil
		}
		pending = left
	}
}

// preEdit asks the pre-edit hook about a Write of content to p.
func (g *HookGate) preEdit(ctx context.Context, in func(string) hooks.Input, p, content string) hooks.Answer {
	tool, _ := json.Marshal(map[string]string{"file_path": filepath.Join(g.Dir, filepath.FromSlash(p)), "content": content})
	pre := in("PreToolUse")
	pre.ToolName, pre.ToolInput = "Write", tool
	return g.Gate.PreEdit(ctx, pre)
}

// rehearsals is how often an edit is shown before it is made (AwaitQuiet).
const rehearsals = 2

// rehearse shows each file the edit writes to the pre-edit hook, writes
// nothing, and waits for AwaitQuiet, rehearsals times; nothing without
// AwaitQuiet.
func (g *HookGate) rehearse(ctx context.Context, edit Edit, in func(string) hooks.Input) error {
	if g.AwaitQuiet == nil {
		return nil
	}
	for range rehearsals {
		for _, p := range edit.Paths() {
			if edit[p] == nil {
				continue
			}
			_ = g.preEdit(ctx, in, p, *edit[p])
		}
		if err := g.AwaitQuiet(ctx); err != nil {
			return err
		}
	}
	return nil
}

// keep saves what the edit's paths hold and returns what puts it back.
func (g *HookGate) keep(edit Edit) (func(), error) {
	saved := map[string][]byte{}
	for _, p := range edit.Paths() {
		abs := filepath.Join(g.Dir, filepath.FromSlash(p))
		data, err := os.ReadFile(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			saved[abs] = nil
		case err != nil:
			return nil, err
		default:
			saved[abs] = data
		}
	}
	return func() {
		for abs, data := range saved {
			if data == nil {
				_ = os.Remove(abs)
				continue
			}
			_ = os.MkdirAll(filepath.Dir(abs), 0o755)
			_ = os.WriteFile(abs, data, 0o644)
		}
	}, nil
}

// Close implements [Gate].
func (g *HookGate) Close() {
	if g.Stop != nil {
		g.Stop()
	}
}
