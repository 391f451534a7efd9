package shadow

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// cargo check runs a workspace's build scripts and procedural macros, and
// what its .cargo/config names: in a workspace the user does not trust,
// cargo check runs only where cargo metadata says the graph has none and
// the configuration names nothing; otherwise the change is unverified
// with the trust command, and nothing of the workspace's ran.
func TestCargoRunsNothingUntrusted(t *testing.T) {
	requireTool(t, "cargo")
	manifest := func(name string) string {
		return "[package]\nname = \"" + name + "\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
	}
	plain := map[string]string{
		"Cargo.toml":   "[workspace]\nmembers = [\"a\"]\nresolver = \"2\"\n",
		"a/Cargo.toml": manifest("a"),
		"a/src/lib.rs": "pub fn f() -> i32 {\n    1\n}\n",
	}
	withBuild := map[string]string{
		"Cargo.toml":   "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
		"a/Cargo.toml": manifest("a"),
		"a/src/lib.rs": "pub fn f() -> i32 {\n    1\n}\n",
		"b/Cargo.toml": manifest("b"),
		"b/build.rs":   "fn main() {\n    println!(\"cargo:warning=the build script ran\");\n}\n",
		"b/src/lib.rs": "pub fn g() -> i32 {\n    2\n}\n",
	}
	edit := map[string]string{"a/src/lib.rs": "pub fn f() -> i32 {\n    \"s\"\n}\n"}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		change  map[string]string
		trusted bool
		want    Verdict
		reason  string // in the unverified reason
	}{
		{name: "no program, untrusted", files: plain, change: edit, want: Rejected},
		{name: "a build script, untrusted", files: withBuild, change: edit, want: Unverified, reason: "build scripts and procedural macros of b"},
		{name: "a build script, trusted", files: withBuild, change: edit, trusted: true, want: Rejected},
		{name: "a build script the change creates", files: plain, change: map[string]string{"a/build.rs": "fn main() {}\n"}, want: Unverified, reason: "build scripts and procedural macros of a"},
		{name: "a procedural macro", files: plain, change: map[string]string{"a/Cargo.toml": manifest("a") + "\n[lib]\nproc-macro = true\n"}, want: Unverified, reason: "procedural macros of a"},
		{name: "a compiler wrapper", files: plain, change: map[string]string{".cargo/config.toml": "[build]\nrustc-wrapper = \"./w.sh\"\n"}, want: Unverified, reason: "build.rustc-wrapper"},
		{name: "an environment for rustc", files: mergeFiles(plain, map[string]string{".cargo/config.toml": "[env]\nLD_PRELOAD = \"./x.so\"\n"}), change: edit, want: Unverified, reason: "environment"},
		{name: "a toolchain by path", files: mergeFiles(plain, map[string]string{"rust-toolchain.toml": "[toolchain]\npath = \"./tc\"\n"}), change: edit, want: Unverified, reason: "toolchain"},
		{name: "a harmless configuration", files: mergeFiles(plain, map[string]string{".cargo/config.toml": "[alias]\nc = \"check\"\n"}), change: edit, want: Rejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, tc.files)
			h := newHarnessAt(t, dir, harnessOptions{noDeps: true, untrusted: !tc.trusted, opts: Options{BatchStateDir: t.TempDir()}})
			res := h.validate(tc.change)
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s\n%s", res.Verdict, tc.want, describe(res))
			}
			if tc.want != Unverified {
				return
			}
			why := res.Unverified[0].Reason
			if !strings.Contains(why, tc.reason) || !strings.Contains(why, "anvil trust") {
				t.Errorf("reason %q: want %q and the trust command", why, tc.reason)
			}
		})
	}
}

func mergeFiles(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestCargoConfigPrograms(t *testing.T) {
	for cfg, names := range map[string]bool{
		"":                         false,
		"[alias]\nb = \"build\"\n": false,
		"[build]\njobs = 2\nrustflags = [\"-Dwarnings\"]\n":      false,
		"[build]\nrustc = \"/x/rustc\"\n":                        true,
		"[build]\nrustc-workspace-wrapper = \"w\"\n":             true,
		"[target.x86_64-unknown-linux-gnu]\nlinker = \"./ld\"\n": true,
		"[target.'cfg(unix)']\nrunner = \"./r\"\n":               true,
		"[host]\nlinker = \"./ld\"\n":                            true,
		"[env]\nFOO = \"1\"\n":                                   true,
		"[registry]\nglobal-credential-providers = [\"./p\"]\n":  true,
		"[build\n": true, // not understood
	} {
		if got := cargoConfigPrograms([]byte(cfg)) != ""; got != names {
			t.Errorf("cargoConfigPrograms(%q) names a program: %v, want %v", cfg, got, names)
		}
	}
	for tc, byPath := range map[string]bool{
		"stable\n":                          false,
		"[toolchain]\nchannel = \"1.80\"\n": false,
		"[toolchain]\npath = \"/opt/tc\"\n": true,
		"../evil\n":                         true,
	} {
		if got := toolchainPath([]byte(tc)); got != byPath {
			t.Errorf("toolchainPath(%q) = %v, want %v", tc, got, byPath)
		}
	}
}

func FuzzCargoConfigPrograms(f *testing.F) {
	f.Add([]byte("[build]\nrustc-wrapper = \"w\"\n"))
	f.Add([]byte("[target.x]\nlinker = 1\n[env]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cargoConfigPrograms(data)
		toolchainPath(data)
		metadataPrograms(data)
	})
}

func TestMetadataPrograms(t *testing.T) {
	out := `{"packages":[{"name":"a","targets":[{"kind":["lib"]}]},{"name":"serde_derive","targets":[{"kind":["proc-macro"]}]},{"name":"libc","targets":[{"kind":["lib"]},{"kind":["custom-build"]}]}]}`
	got, err := metadataPrograms([]byte(out))
	if err != nil || strings.Join(got, ",") != "libc,serde_derive" {
		t.Fatalf("metadataPrograms = %v, %v", got, err)
	}
	if _, err := metadataPrograms([]byte("warning: x\n{")); err == nil {
		t.Fatal("garbage read as metadata")
	}
}

// One cargo metadata run answers every check of a disk state: checks that
// come while it runs wait for it, each within its own context (not behind
// a lock); a failed run is not kept; a change that can reshape the graph
// is asked about on its own.
func TestCargoMetadataOncePerState(t *testing.T) {
	var c cargoMetaCache
	release := make(chan struct{})
	var asked atomic.Int32
	ask := func(ctx context.Context) ([]string, error) {
		asked.Add(1)
		select {
		case <-release:
			return []string{"build.rs of app"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	body := []*changeset.Change{{Path: "src/lib.rs"}}
	first := make(chan []string)
	go func() {
		runs, _ := c.programs(context.Background(), "s1", body, ask)
		first <- runs
	}()
	for asked.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// A waiter whose own bound ends first is told so, at its bound.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.programs(ctx, "s1", body, ask); err == nil || !strings.Contains(err.Error(), "waiting for cargo metadata") {
		t.Errorf("a waiter past its bound: %v", err)
	}
	second := make(chan []string)
	go func() {
		runs, _ := c.programs(context.Background(), "s1", body, ask)
		second <- runs
	}()
	time.Sleep(10 * time.Millisecond)
	close(release)
	if a, b := <-first, <-second; len(a) != 1 || len(b) != 1 || asked.Load() != 1 {
		t.Errorf("runs %v and %v, cargo metadata asked %d times, want once", a, b, asked.Load())
	}
	if _, err := c.programs(context.Background(), "s1", []*changeset.Change{{Path: "Cargo.toml"}}, ask); err != nil || asked.Load() != 2 {
		t.Errorf("a manifest change was answered from the state's run (asked %d times): %v", asked.Load(), err)
	}

	failing := func(context.Context) ([]string, error) { asked.Add(1); return nil, errors.New("broken manifest") }
	before := asked.Load()
	for range 2 {
		if _, err := c.programs(context.Background(), "s2", body, failing); err == nil {
			t.Fatal("a failed run answered")
		}
	}
	if asked.Load()-before != 2 {
		t.Errorf("a failed run was kept: asked %d times for 2 checks", asked.Load()-before)
	}
}
