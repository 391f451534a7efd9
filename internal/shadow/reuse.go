package shadow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// The agent checks a change set when its turn ends (a staging check, the
// changed files and their direct dependants) and again when it commits
// (every dependant), usually with nothing changed in between. What a
// server said about a file under one state — the same change set
// contents over the same disk (the snapshot's fingerprint, installed
// dependencies included) — is what it would say again, so the second
// check asks only about the files the first did not check.

// checkedState is a server's last answers under one state.
type checkedState struct {
	key string
	cr  servers.CheckResult
}

// reuse keeps each server's last checkedState.
type reuse struct {
	mu   sync.Mutex
	last map[string]*checkedState // by server name
}

// stateKey names the state a check of g's changes over snap sees: the
// disk, and each change's base (tsserver's "before" is asked at the base)
// and content.
func stateKey(snap *Snapshot, changes []*changeset.Change) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", snap.Fingerprint)
	for _, c := range changes {
		sum := sha256.Sum256(c.Content)
		fmt.Fprintf(h, "%s\x00%t\x00%s\x00%x\x00", c.Path, c.Delete, c.BaseHash(), sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// known returns the answers kept for server under key, nil if none.
func (r *reuse) known(server, key string) *servers.CheckResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.last[server]; s != nil && s.key == key {
		return &s.cr
	}
	return nil
}

// keep records cr as server's answers under key.
func (r *reuse) keep(server, key string, cr servers.CheckResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]*checkedState{}
	}
	if cr.Stopped != "" {
		// An answer that stopped part-way is not kept: its files' answers,
		// taken back alone, would lose the stop (a unit's fatal error on
		// disk) and read as whole.
		delete(r.last, server)
		return
	}
	// A copy: the validation goes on with its own maps.
	kept := servers.CheckResult{Before: maps.Clone(cr.Before), After: maps.Clone(cr.After), Checked: slices.Clone(cr.Checked)}
	r.last[server] = &checkedState{key: key, cr: kept}
}

// skipKnown takes the dependants prev already checked out of req and
// returns them. When one of them gained errors, it takes none: the check
// then stops where a check of its own would (at the nearest files with
// new errors), so its verdict and the files it names are the same
// whether another check came first or not. Errors, not diagnostics: a
// "before" spared by the batch checker's answer (CleanAtDisk) is empty,
// and a file's warnings after the change would otherwise read as gained.
func skipKnown(req *servers.CheckRequest, prev *servers.CheckResult) []string {
	for _, d := range req.Dependants {
		if slices.Contains(prev.Checked, d) && errorCount(prev.After[d]) > errorCount(prev.Before[d]) {
			return nil
		}
	}
	var rest, known []string
	direct := 0
	for i, d := range req.Dependants {
		if _, ok := prev.After[d]; ok && slices.Contains(prev.Checked, d) {
			known = append(known, d)
			continue
		}
		rest = append(rest, d)
		if i < req.DirectDependants {
			direct++
		}
	}
	req.Dependants, req.DirectDependants = rest, direct
	return known
}

// addKnown puts prev's answers for files into cr.
func addKnown(cr *servers.CheckResult, prev *servers.CheckResult, files []string) {
	if cr.Before == nil {
		cr.Before = map[string][]lsp.Diagnostic{}
	}
	if cr.After == nil {
		cr.After = map[string][]lsp.Diagnostic{}
	}
	for _, f := range files {
		if b, ok := prev.Before[f]; ok {
			cr.Before[f] = b
		}
		cr.After[f] = prev.After[f]
		if !slices.Contains(cr.Checked, f) {
			cr.Checked = append(cr.Checked, f)
		}
	}
}

// errorCount counts the errors of ds.
func errorCount(ds []lsp.Diagnostic) int {
	n := 0
	for _, d := range ds {
		if d.IsError() {
			n++
		}
	}
	return n
}
