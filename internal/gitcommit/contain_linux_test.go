package gitcommit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A trusted repository's own programs run for a commit (its hooks, a
// clean filter through git add), contained: a secret in a place the
// policy hides is not there for them, and the commit is made. Run as
// they are (no containment), both read it: the test can fail.
func TestTrustedRepositoryProgramsRunContained(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	secrets := testfs.Tree(t, map[string]string{"key": "KEY-SECRET\n"})
	for _, tc := range []struct {
		name    string
		contain *proc.Containment
		leaks   bool
	}{
		{"as they are", nil, true},
		{"contained", &proc.Containment{Helper: exe, Hidden: []string{secrets}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := t.TempDir()
			dir := repoWith(t, map[string]string{"a.txt": "a\n", ".gitattributes": "*.txt filter=peek\n"})
			git(t, dir, "config", "filter.peek.clean", "sh -c 'cat "+filepath.Join(secrets, "key")+" >> "+filepath.Join(read, "filter")+" 2>&1; cat'")
			testfs.Write(t, dir, map[string]string{".git/hooks/pre-commit": "#!/bin/sh\ncat " + filepath.Join(secrets, "key") + " > " + filepath.Join(read, "hook") + " 2>&1\nexit 0\n"})
			if err := os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o755); err != nil {
				t.Fatal(err)
			}
			files := write(t, dir, map[string]string{"a.txt": "anvil\n"})
			if _, err := Commit(context.Background(), dir, files, "Anvil", Options{Env: os.Environ(), Contain: tc.contain}); err != nil {
				t.Fatalf("commit: %v", err)
			}
			for _, program := range []string{"hook", "filter"} {
				data, err := os.ReadFile(filepath.Join(read, program))
				if err != nil {
					t.Fatalf("the %s did not run: %v", program, err)
				}
				if leaked := strings.Contains(string(data), "KEY-SECRET"); leaked != tc.leaks {
					t.Errorf("the %s read the secret: %v, want %v (%q)", program, leaked, tc.leaks, data)
				}
			}
		})
	}
}
