package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// A snapshot keeps every text file (not installed packages, not .git),
// privately, once per session; a source file past the size bound is left
// out and the snapshot says it is partial, a large data file is left out
// alone;
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
		"data/dump.json":            strings.Repeat("x", maxSnapFile+1),
	})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	s := NewStore(state)
	ctx := context.Background()
	snap, err := s.Ensure(ctx, root, "one", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Files) != 3 || snap.Files["src/a.ts"] == "" || snap.Files["tsconfig.json"] == "" || snap.Files["README.md"] == "" || snap.Partial {
		t.Fatalf("files %v, partial %v", snap.Files, snap.Partial)
	}
	if len(snap.Opaque) != 2 || snap.Opaque["src/big.ts"] != changeset.Hash([]byte(strings.Repeat("x", maxSnapFile+1))) || snap.Opaque["data/dump.json"] == "" {
		t.Fatalf("the files too large to keep are not known by their hash: %v", snap.Opaque)
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
	again, err := s.Ensure(ctx, root, "one", "")
	if err != nil || again.Files["src/a.ts"] != snap.Files["src/a.ts"] || !again.Created.Equal(snap.Created) {
		t.Errorf("a second Ensure took another snapshot: %v %v", again, err)
	}
	// A file known by its hash is kept as the edit hook first sees it
	// while it still has that hash; a file the session made is not.
	if err := s.Record(root, again, "src/big.ts", []byte("before"), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(root, "one"); got.Files["src/big.ts"] != "" {
		t.Errorf("Record kept a content the file did not have at the start: %v", got.Files)
	}
	if err := s.Record(root, again, "src/big.ts", []byte(strings.Repeat("x", maxSnapFile+1)), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(root, "one"); got.Files["src/big.ts"] == "" || got.Opaque["src/big.ts"] != "" {
		t.Errorf("Record kept nothing: %v %v", got.Files, got.Opaque)
	}
	if err := s.Record(root, again, "src/made.ts", []byte("made\n"), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(root, "one"); got.Files["src/made.ts"] != "" {
		t.Errorf("Record took a file the session made for the start's: %v", got.Files)
	}

	// Sessions past their age go, and the copies only they used.
	oldBlob := snap.Files["src/a.ts"]
	s.clock = func() time.Time { return time.Now().Add(snapTTL + time.Hour) }
	if _, err := s.Ensure(ctx, root, "two", ""); err != nil {
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

// Which files can change a verdict is the gate's to say: the end of the
// turn hands it every file a shell changed, data and fixtures included
// (a JSON module an importer reads, a file a //go:embed names), each
// with its content at the session's start; a large data file leaves the
// snapshot whole. Before, only source and configuration files were kept,
// and a turn whose shell rewrote data.json ended without a check.
func TestTurnSeesEveryFileAShellChanged(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"src/a.ts":                    "import d from './data.json';\nexport const n: number = d.n;\n",
		"src/data.json":               `{"n": 1}`,
		"version.txt":                 "1.0\n",
		"fixtures/big.c":              "",
		"dump.csv":                    strings.Repeat("x,", maxSnapFile),
		"img/logo.png":                "\x89PNG\x00one",
		"img/same.png":                "\x89PNG\x00same",
		"go.mod":                      "module m\n\ngo 1.22\n",
		"main.go":                     "package main\n\nimport _ \"embed\"\n\n//go:embed img/logo.png\nvar logo []byte\n\nfunc main() {}\n",
		"data/big.json":               "[" + strings.Repeat("1,", maxSnapFile) + "1]",
		"node_modules/x/package.json": `{"name": "x"}`,
		".venv/pyvenv.cfg":            "home = /usr/bin\n",
	})
	for _, l := range []string{"src/alias.ts", "src/gone.ts"} {
		if err := os.Symlink("a.ts", filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
	ctx := context.Background()
	snap, err := s.Ensure(ctx, root, "shell", "")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Partial {
		t.Fatalf("a large data file made the snapshot partial")
	}
	testfs.Write(t, dir, map[string]string{"src/data.json": `{"n": "one"}`, "version.txt": "2.0\n", "img/logo.png": "\x89PNG\x00two", "bin/tool": "\x7fELF\x00"})
	for _, gone := range []string{"dump.csv", "data/big.json"} {
		if err := os.Remove(filepath.Join(dir, gone)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "src/gone.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../version.txt", filepath.Join(dir, "src/made.ts")); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{"node_modules/y/package.json": `{"name": "y"}`}) // npm install y
	specs, unknown, err := (&Gate{Snapshots: s}).wayBack(ctx, root, snap)
	// What no change set can take back is named where a checker may read
	// it, never passed over: a binary file a //go:embed names, a large
	// JSON file deleted, a link made or removed (one left as it was is no
	// change), a package installed (the virtual environment left as it
	// was is none). A binary a build made and a data dump no checker
	// reads are no change of theirs.
	if err != nil || strings.Join(unknown, " ") != "data/big.json img/logo.png node_modules/ src/gone.ts src/made.ts" {
		t.Fatalf("wayBack: unknown %v, %v", unknown, err)
	}
	back := map[string]string{}
	for _, sp := range specs {
		if sp.Content != nil {
			back[sp.Path] = *sp.Content
		}
	}
	want := map[string]string{"src/data.json": `{"n": 1}`, "version.txt": "1.0\n"}
	if len(back) != len(want) || back["src/data.json"] != want["src/data.json"] || back["version.txt"] != want["version.txt"] {
		t.Errorf("the way back = %q, want %q", back, want)
	}
}

// A session whose hooks keep being called keeps its snapshot however
// many sessions start beside it (every hook call marks it in use, and
// pruning goes by last use). Before, pruning went by the snapshot's age
// alone: after 64 newer sessions anywhere, a working session's end of
// the turn found no snapshot and passed unchecked.
func TestWorkingSessionKeepsItsSnapshot(t *testing.T) {
	root, s := storeOver(t, map[string]string{"a.ts": "export const a = 1;\n"})
	ctx := context.Background()
	if _, err := s.Ensure(ctx, root, "working", ""); err != nil {
		t.Fatal(err)
	}
	// The working session's hook calls land later than any snapshot the
	// others write.
	later := time.Now().Add(time.Hour)
	for i := range maxSessions + 20 {
		if _, err := s.Ensure(ctx, root, fmt.Sprintf("other-%d", i), ""); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			s.clock = func() time.Time { return later }
			if snap, err := s.Load(root, "working"); snap == nil || err != nil {
				t.Fatalf("after %d other sessions the working session's snapshot is gone (%v)", i+1, err)
			}
			s.clock = time.Now
		}
	}
}

// A session its client can still resume (its transcript is there) can
// still end a turn, so its snapshot stays however long it sits unused
// and however many sessions start after it; once the client's record is
// gone, the bounds apply. Before, an idle session's snapshot went after
// 14 days or 256 newer sessions, and its next end of a turn was
// unverified.
func TestAResumableSessionKeepsItsSnapshot(t *testing.T) {
	root, s := storeOver(t, map[string]string{"a.ts": "export const a = 1;\n"})
	transcript := filepath.Join(t.TempDir(), "idle.jsonl")
	testfs.Write(t, filepath.Dir(transcript), map[string]string{"idle.jsonl": "{}\n"})
	ctx := context.Background()
	if _, err := s.Ensure(ctx, root, "idle", ""); err != nil {
		t.Fatal(err)
	}
	if snap, err := s.Ensure(ctx, root, "idle", transcript); err != nil || snap.Transcript != transcript {
		t.Fatalf("a later hook call's transcript was not kept: %+v %v", snap, err)
	}
	if _, err := s.Ensure(ctx, root, "gone", filepath.Join(t.TempDir(), "none.jsonl")); err != nil {
		t.Fatal(err)
	}
	s.clock = func() time.Time { return time.Now().Add(snapTTL + 24*time.Hour) }
	for i := range maxSessions + 5 {
		if _, err := s.Ensure(ctx, root, fmt.Sprintf("later-%d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	if snap, err := s.Load(root, "idle"); snap == nil || err != nil {
		t.Fatalf("a session its client can resume lost its snapshot (%v)", err)
	}
	if snap, _ := s.Load(root, "gone"); snap != nil {
		t.Errorf("a session whose client's record is gone kept its snapshot past the bounds")
	}
	if err := os.Remove(transcript); err != nil {
		t.Fatal(err)
	}
	s.clock = func() time.Time { return time.Now().Add(2*snapTTL + 48*time.Hour) }
	if _, err := s.Ensure(ctx, root, "last", ""); err != nil {
		t.Fatal(err)
	}
	if snap, _ := s.Load(root, "idle"); snap != nil {
		t.Errorf("the session's snapshot stayed after its client's record went")
	}
}

// A generated source the ignore rules leave out is read by the checker
// all the same: a code generator run by a shell command during the turn
// changes it, and the end of the turn checks it (before, the snapshot
// held no ignored file and the turn ended without a check). An ignored
// file no checker reads by its kind (a log) is not kept; a snapshot taken
// before ignored files were kept does not take them for new.
func TestTurnSeesAGeneratedIgnoredSource(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		".gitignore":        "gen/\n*.log\n",
		"src/a.ts":          "import { n } from '../gen/api';\nexport const m: number = n;\n",
		"src/b.ts":          "import data from \"../gen/data.json\";\nexport const k: number = data.k;\n",
		"src/c.ts":          "import schema from \"@gen/schema.json\";\nexport const v: number = schema.v;\n",
		"src/d.ts":          "import meta from \"lib/package.json\";\nexport const version: string = meta.version;\n",
		"gen/api.ts":        "export const n: number = 1;\n",
		"gen/data.json":     `{"k": 1}`,
		"gen/schema.json":   `{"v": 1}`,
		"gen/manifest.json": `{"built": 1}`,
		"build.log":         "one\n",
	})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
	ctx := context.Background()
	snap, err := s.Ensure(ctx, root, "gen", "")
	if err != nil {
		t.Fatal(err)
	}
	// Ignored JSON is kept where a module imports it (data is part of
	// its importers' types), not otherwise (a build's own records).
	if snap.Files["gen/api.ts"] == "" || snap.Files["gen/data.json"] == "" || snap.Files["gen/schema.json"] == "" || snap.Files["gen/manifest.json"] != "" || snap.Files["build.log"] != "" || snap.IgnoredPartial {
		t.Fatalf("kept %v (ignored partial %v)", snap.Files, snap.IgnoredPartial)
	}
	testfs.Write(t, dir, map[string]string{"gen/api.ts": "export const n: string = \"one\";\n", "gen/extra.ts": "export {};\n", "build.log": "two\n",
		"gen/data.json": `{"k": "one"}`, "gen/schema.json": `{"v": "one"}`, "gen/manifest.json": `{"built": 2}`})
	specs, unknown, err := (&Gate{Snapshots: s}).wayBack(ctx, root, snap)
	if err != nil || len(unknown) > 0 {
		t.Fatalf("wayBack: unknown %v, %v", unknown, err)
	}
	back := map[string]string{}
	for _, sp := range specs {
		back[sp.Path] = "deleted"
		if sp.Content != nil {
			back[sp.Path] = *sp.Content
		}
	}
	want := map[string]string{"gen/api.ts": "export const n: number = 1;\n", "gen/data.json": `{"k": 1}`, "gen/schema.json": `{"v": 1}`, "gen/extra.ts": "deleted"}
	if fmt.Sprint(back) != fmt.Sprint(want) {
		t.Errorf("the way back = %q, want %q", back, want)
	}
	// A snapshot of an earlier Anvil: no ignored file in it, none taken
	// for created.
	old := *snap
	old.IgnoredKept, old.Files = false, map[string]string{"src/a.ts": snap.Files["src/a.ts"], "src/b.ts": snap.Files["src/b.ts"], "src/c.ts": snap.Files["src/c.ts"], "src/d.ts": snap.Files["src/d.ts"], ".gitignore": snap.Files[".gitignore"]}
	specs, _, err = (&Gate{Snapshots: s}).wayBack(ctx, root, &old)
	if err != nil || len(specs) != 0 {
		t.Errorf("an earlier snapshot's way back = %v, %v", specs, err)
	}
}

// A session's manifest is the end of the turn's baseline: one that
// another user could have written is refused, never read, so a planted
// manifest (saying the session's broken file was already broken) cannot
// pass a turn. The turn's end says so, and is not verified.
func TestPlantedManifestIsNeverRead(t *testing.T) {
	dir, root := oneFileRepo(t)
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, s *Store, manifest string)
	}{
		{"a manifest others may write", func(t *testing.T, s *Store, manifest string) {
			if err := os.Chmod(manifest, 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{"a manifest that is a link", func(t *testing.T, s *Store, manifest string) {
			data, err := os.ReadFile(manifest)
			if err != nil {
				t.Fatal(err)
			}
			replaceWithLink(t, manifest, data)
		}},
		{"a sessions directory others may write", func(t *testing.T, s *Store, manifest string) {
			if err := os.Chmod(filepath.Dir(manifest), 0o777); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(t.TempDir())
			if _, err := s.Ensure(context.Background(), root, "one", ""); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, s, s.manifest(root, "one"))
			snap, err := s.Load(root, "one")
			if !state.IsUnsafe(err) {
				t.Fatalf("Load = %v, %v; want an unsafe-state error", snap, err)
			}
			g := &Gate{Client: Claude, Getenv: func(string) string { return "" }, Snapshots: s}
			a := g.Stop(context.Background(), Input{SessionID: "one", Cwd: dir})
			if a.Deny || !strings.Contains(a.Message+a.Context+a.Reason, "not checked") {
				t.Errorf("the turn's end with a planted manifest: %+v", a)
			}
		})
	}
}

// The contents kept before an edit the post-edit hook checks are what
// the written file is held to: a pending file others may write, or one
// that is a link, is refused, never read.
func TestPlantedPendingIsNeverRead(t *testing.T) {
	_, root := oneFileRepo(t)
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, pending string)
	}{
		{"writable by others", func(t *testing.T, pending string) {
			if err := os.Chmod(pending, 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link", func(t *testing.T, pending string) { replaceWithLink(t, pending, []byte(`{"a.ts": ""}`)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(t.TempDir())
			if err := s.KeepBefore(root, "one", "a.ts", []byte("export const a = 1;\n"), true); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, s.pendingPath(root, "one"))
			if _, _, err := s.TakeBefore(root, "one", "a.ts"); !state.IsUnsafe(err) {
				t.Fatalf("TakeBefore = %v; want an unsafe-state error", err)
			}
		})
	}
}

// oneFileRepo is a git work tree holding a.ts.
func oneFileRepo(t *testing.T) (string, *workspace.Root) {
	t.Helper()
	dir := testfs.Tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.ts": "export const a = 1;\n"})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, root
}

// replaceWithLink replaces the file at p with a link to a copy of data
// elsewhere: a state file another user planted.
func replaceWithLink(t *testing.T, p string, data []byte) {
	t.Helper()
	other := filepath.Join(t.TempDir(), "forged")
	if err := os.WriteFile(other, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, p); err != nil {
		t.Fatal(err)
	}
}

// Where the snapshot could not have known a file (past its bounds, here
// marked partial), an edit keeps the file as it first sees it; that is
// the session's start only where the disk shows it unchanged since the
// session began (its modification time; a missing file is kept as
// missing, whose way back can only refuse more). A file a shell wrote
// after the start and an edit then touched is checked from that content
// and named as not verified. Before, it was taken for the start's, and
// the errors the shell brought in passed (found by a review).
func TestAFileFirstSeenByAnEditIsTheStartsOnlyWithEvidence(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"src/old.ts": "export const o = 1;\n", "src/keep/.gitkeep": ""})
	long := time.Now().Add(-time.Hour)
	for _, p := range []string{"src/old.ts", "src/keep"} {
		if err := os.Chtimes(filepath.Join(dir, p), long, long); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
	ctx := context.Background()
	snap, err := s.Ensure(ctx, root, "late", "")
	if err != nil {
		t.Fatal(err)
	}
	// As if the bounds had left out old.ts.
	delete(snap.Files, "src/old.ts")
	snap.Partial = true
	if err := s.save(root, snap); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	testfs.Write(t, dir, map[string]string{"src/gen.ts": "export const g: number = \"g\";\n"}) // by a shell
	for _, f := range []struct {
		rel    string
		exists bool
	}{{"src/gen.ts", true}, {"src/old.ts", true}, {"src/keep/new.ts", false}} {
		data, _ := os.ReadFile(filepath.Join(dir, f.rel))
		if err := s.Record(root, snap, f.rel, data, f.exists); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Load(root, "late")
	if !got.Late["src/gen.ts"] || got.Late["src/old.ts"] || got.Late["src/keep/new.ts"] || len(got.Late) != 1 {
		t.Fatalf("late: %v", got.Late)
	}
	_, unknown, err := (&Gate{Snapshots: s}).wayBack(ctx, root, got)
	if err != nil || strings.Join(unknown, " ") != "src/gen.ts" {
		t.Fatalf("wayBack: unknown %v, %v", unknown, err)
	}
}

// Hooks of one session run at once (parallel subagents; an end of the
// turn that checks for seconds while an edit hook keeps a file): each
// changes the manifest as it is on disk, so none drops what another
// kept. Before, each wrote back the copy it had loaded, and the last
// writer's copy won (found by a review).
func TestHooksOfOneSessionKeepEachOthersRecords(t *testing.T) {
	root, s := storeOver(t, map[string]string{"a.ts": "export const a = 1;\n"})
	ctx := context.Background()
	snap, err := s.Ensure(ctx, root, "both", "")
	if err != nil {
		t.Fatal(err)
	}
	snap.Partial = true // as if past its bounds: every file an edit sees is kept
	if err := s.save(root, snap); err != nil {
		t.Fatal(err)
	}
	one, _ := s.Load(root, "both")
	two, _ := s.Load(root, "both")
	stop, _ := s.Load(root, "both")
	if err := s.Record(root, one, "x.ts", []byte("x\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(root, two, "y.ts", []byte("y\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetBlocks(root, stop, 2); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Load(root, "both")
	if got.Files["x.ts"] == "" || got.Files["y.ts"] == "" || got.Blocks != 2 {
		t.Errorf("files %v, blocks %d: a hook's write dropped another's", got.Files, got.Blocks)
	}
}

// storeOver lays out files in a workspace and returns it with an empty
// store of session snapshots.
func storeOver(t *testing.T, files map[string]string) (*workspace.Root, *Store) {
	t.Helper()
	dir := t.TempDir()
	testfs.Write(t, dir, files)
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, NewStore(t.TempDir())
}

// The JSON files a module's text names, in every form that loads one: a
// relative specifier, a mapped path's, a package's.
func TestJSONImports(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`import data from "./data.json";`, "./data.json"},
		{`import data from './data.json' with { type: "json" };`, "./data.json"},
		{`export { default as d } from "../d.json";`, "../d.json"},
		{`const c = require( '../conf/c.json' );`, "../conf/c.json"},
		{`const m = await import("./lazy.json");`, "./lazy.json"},
		{`import x from "pkg/x.json"; import y from "@data/y.json";`, "pkg/x.json @data/y.json"},
		{`import z from "./z.json5"; const s = "./s.json";`, ""},
	} {
		if got := strings.Join(jsonImports([]byte(tc.text)), " "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// The end of a turn walks with the ignore rules as they are then: a
// session that makes src/gen/schema.ts with an error and adds src/gen/
// to a .gitignore (or to .git/info/exclude) would hide the file from
// that walk, so a change of the rules is named as not verified. Before,
// the file went unseen and the turn ended clean (found by a review). A
// new .gitignore that holds "*" ignores itself too, and was not named;
// one a tool makes in a new folder of its own hides nothing that was
// there, and is not.
func TestIgnoreRulesTheSessionChangedAreNamed(t *testing.T) {
	schema := "export const s: number = \"s\";\n"
	for _, tc := range []struct {
		name   string
		writes map[string]string
		want   string
	}{
		{".gitignore", map[string]string{"src/gen/schema.ts": schema, ".gitignore": "*.log\nsrc/gen/\n"}, ".gitignore"},
		{".git/info/exclude", map[string]string{"src/gen/schema.ts": schema, ".git/info/exclude": "*.log\nsrc/gen/\n"}, ".git/info/exclude"},
		{"a new .gitignore that ignores itself and the files beside it", map[string]string{"src/.gitignore": "*\n"}, "src/.gitignore"},
		{"a tool's new cache folder that ignores itself", map[string]string{".pytest_cache/.gitignore": "*\n", ".pytest_cache/v/cache/lastfailed": "{}"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// out/.gitignore ignores itself from the start, and is left as it was.
			root, s := storeOver(t, map[string]string{".gitignore": "*.log\n", ".git/info/exclude": "", "src/a.ts": "export const a = 1;\n", "out/.gitignore": "*\n"})
			ctx := context.Background()
			snap, err := s.Ensure(ctx, root, "rules", "")
			if err != nil {
				t.Fatal(err)
			}
			testfs.Write(t, root.Dir(), tc.writes)
			_, unknown, err := (&Gate{Snapshots: s}).wayBack(ctx, root, snap)
			if err != nil || strings.Join(unknown, " ") != tc.want {
				t.Fatalf("wayBack: unknown %v, %v; want %s", unknown, err, tc.want)
			}
		})
	}
}

// An edit that makes a file where the snapshot never looks (installed
// packages, an ignored kind it does not keep) keeps it as missing at the
// start, so that the end of the turn, which does not walk there either,
// still checks the way back (its deletion). A missing file where the
// snapshot looked is known missing already. Before, only a file that
// was there was kept, and one the edit made went unseen.
func TestAFileAnEditMakesWhereTheSnapshotNeverLooks(t *testing.T) {
	root, s := storeOver(t, map[string]string{".gitignore": "out/\n", "src/a.ts": "export const a = 1;\n", "node_modules/x/index.d.ts": "export {};\n"})
	snap, err := s.Ensure(context.Background(), root, "made", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"node_modules/x/extra.d.ts", "out/data.json", "src/new.ts"} {
		if err := s.Record(root, snap, rel, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Load(root, "made")
	for rel, want := range map[string]bool{"node_modules/x/extra.d.ts": true, "out/data.json": true, "src/new.ts": false} {
		if _, kept := got.Files[rel]; kept != want {
			t.Errorf("%s kept as missing: %v, want %v", rel, kept, want)
		}
	}
}
