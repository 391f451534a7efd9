package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// A snapshot keeps the source and configuration files (not the docs, not
// installed packages, not .git), privately, once per session; a file
// past the size bound is left out and the snapshot says it is partial;
// old sessions go, with the copies only they used.
func TestSnapshotStore(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"tsconfig.json":             "{}",
		"src/a.ts":                  "export const a = 1;\n",
		"README.md":                 "# docs\n",
		"node_modules/x/index.d.ts": "export {};\n",
		".git/hooks/pre-commit.ts":  "x",
		"src/big.ts":                strings.Repeat("x", maxSnapFile+1),
	})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	s := NewStore(state)
	ctx := context.Background()
	snap, err := s.Ensure(ctx, root, "one")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Files) != 2 || snap.Files["src/a.ts"] == "" || snap.Files["tsconfig.json"] == "" || !snap.Partial {
		t.Fatalf("files %v, partial %v", snap.Files, snap.Partial)
	}
	for _, p := range []string{s.dir, filepath.Join(s.dir, "blobs")} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v", p, info.Mode(), err)
		}
	}
	if info, err := os.Stat(s.blob(snap.Files["src/a.ts"])); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("blob mode %v %v", info.Mode(), err)
	}
	if data, err := s.Content(snap.Files["src/a.ts"]); err != nil || string(data) != "export const a = 1;\n" {
		t.Errorf("content %q %v", data, err)
	}

	testfs.Write(t, dir, map[string]string{"src/a.ts": "changed\n"})
	again, err := s.Ensure(ctx, root, "one")
	if err != nil || again.Files["src/a.ts"] != snap.Files["src/a.ts"] || !again.Created.Equal(snap.Created) {
		t.Errorf("a second Ensure took another snapshot: %v %v", again, err)
	}
	// A file the snapshot left out is kept as the edit hook first sees it.
	if err := s.Record(root, again, "src/big.ts", []byte("before"), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(root, "one"); got.Files["src/big.ts"] == "" {
		t.Errorf("Record kept nothing: %v", got.Files)
	}

	// Sessions past their age go, and the copies only they used.
	oldBlob := snap.Files["src/a.ts"]
	s.clock = func() time.Time { return time.Now().Add(snapTTL + time.Hour) }
	if _, err := s.Ensure(ctx, root, "two"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(root, "one"); got != nil {
		t.Errorf("the old session stayed")
	}
	if _, err := os.Stat(s.blob(oldBlob)); !os.IsNotExist(err) {
		t.Errorf("the old session's copy stayed: %v", err)
	}
	if got, _ := s.Load(root, "two"); got == nil || got.Files["src/a.ts"] != changedHash() {
		t.Errorf("the new session: %+v", got)
	}
}

func changedHash() string { return changeset.Hash([]byte("changed\n")) }
