package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/textdiff"
)

// Plan is what installing or removing Anvil's hooks does to one file.
type Plan struct {
	// Path is the settings file as the client names it; Target is the
	// file written, where Path's links lead (a settings file kept in a
	// dotfiles repository stays a link, its target edited in place).
	Path, Target string
	Before       []byte // nil: the file does not exist
	After        []byte
	// Exists is whether the file exists now.
	Exists bool
	// Remove deletes the file: Anvil's own file, or a settings file
	// Anvil created that holds nothing once its entries are gone.
	Remove bool
	// Created lists what an install creates (the file, its directories),
	// which the ledger keeps so that the uninstall removes them.
	Created []string
}

// Changed reports whether the plan changes the file.
func (p Plan) Changed() bool {
	if p.Remove {
		return p.Exists
	}
	return !p.Exists && p.After != nil || p.Exists && !bytes.Equal(p.Before, p.After)
}

// Diff is the plan's change as a unified diff of the file.
func (p Plan) Diff() string {
	from, to := "a"+p.Path, "b"+p.Path
	before, after := string(p.Before), string(p.After)
	if !p.Exists {
		from = "/dev/null"
	}
	if p.Remove {
		to, after = "/dev/null", ""
	}
	return textdiff.Unified(from, to, before, after)
}

// PlanInstall reads path and computes its content with Anvil's entries
// for client c.
func PlanInstall(path string, c Client, bin string) (Plan, error) {
	p, err := readPlan(path)
	if err != nil {
		return p, err
	}
	if p.After, err = Install(p.Before, c, bin); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	if !p.Exists {
		p.Created = append(missingDirs(filepath.Dir(p.Target)), p.Target)
	}
	return p, nil
}

// PlanUninstall reads path and computes its content without Anvil's
// entries; a missing file stays missing; a file the ledger says Anvil
// created goes once it holds nothing else, with the directories the
// install made for it, when they are empty.
func PlanUninstall(path string, c Client, ledger *Ledger) (Plan, error) {
	p, err := readPlan(path)
	if err != nil || !p.Exists {
		return p, err
	}
	if p.After, err = Uninstall(p.Before, c); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case p.After == nil:
		p.Remove = true
	case ledger != nil && isEmptyObject(p.After):
		if created := ledger.created(p.Target); slices.Contains(created, p.Target) {
			p.Remove, p.Created = true, created
		}
	}
	if p.Remove && ledger != nil && len(p.Created) == 0 {
		p.Created = ledger.created(p.Target)
	}
	return p, nil
}

// isEmptyObject reports whether settings hold nothing: "{}" and blanks.
func isEmptyObject(text []byte) bool {
	return string(bytes.Join(bytes.Fields(text), nil)) == "{}"
}

func readPlan(path string) (Plan, error) {
	p := Plan{Path: path}
	target, err := resolveLinks(path)
	if err != nil {
		return p, err
	}
	p.Target = target
	data, err := os.ReadFile(target)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return p, nil
	case err != nil:
		return p, err
	}
	p.Before, p.Exists = data, true
	return p, nil
}

// resolveLinks follows path's final links, even to a target not there
// yet, so that writing replaces the target and keeps the link.
func resolveLinks(path string) (string, error) {
	for range 40 {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("%s: too many links", path)
}

// missingDirs lists dir and its parents that do not exist, outermost
// first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// Apply writes the plan's content to its target, atomically, keeping
// the file's mode; a removal deletes the file and the directories the
// install created for it, those left empty. ledger (may be nil) keeps
// what the install created.
func (p Plan) Apply(ledger *Ledger) error {
	if !p.Changed() {
		return nil
	}
	if p.Remove {
		if err := os.Remove(p.Target); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for i := len(p.Created) - 1; i >= 0; i-- {
			if p.Created[i] != p.Target {
				_ = os.Remove(p.Created[i]) // only an empty directory goes
			}
		}
		if ledger != nil {
			ledger.forget(p.Target)
		}
		return nil
	}
	if err := writeKeepingMode(p.Target, p.After); err != nil {
		return err
	}
	if ledger != nil && len(p.Created) > 0 {
		return ledger.note(p.Target, p.Created)
	}
	return nil
}

func writeKeepingMode(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".anvil-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Ledger remembers the settings files (and their directories) Anvil's
// installs created, in Anvil's private state directory, so that an
// uninstall removes what the install made and nothing the user had.
type Ledger struct{ dir string }

// NewLedger returns the ledger in Anvil's state directory (state.Dir).
func NewLedger(stateDir string) *Ledger {
	return &Ledger{dir: filepath.Join(stateDir, "hooks", "created")}
}

func (l *Ledger) entry(target string) string {
	sum := sha256.Sum256([]byte(target))
	return filepath.Join(l.dir, hex.EncodeToString(sum[:16]))
}

func (l *Ledger) note(target string, created []string) error {
	if err := state.EnsureDir(filepath.Dir(l.dir)); err != nil {
		return err
	}
	if err := state.EnsureDir(l.dir); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, c := range created {
		b.WriteString(c + "\n")
	}
	return writeAtomic(l.entry(target), b.Bytes(), false)
}

// created lists what the install of target created, or nothing.
func (l *Ledger) created(target string) []string {
	data, err := os.ReadFile(l.entry(target))
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) > 0 {
			out = append(out, string(line))
		}
	}
	return out
}

func (l *Ledger) forget(target string) { _ = os.Remove(l.entry(target)) }
