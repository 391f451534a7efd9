package shadow

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// requireTool fails (never skips) when a checker the suite needs is
// missing: scripts/install-deps.sh installs them.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s: %v (run scripts/install-deps.sh)", name, err)
	}
}

// treeHash is a digest of every file under dir (paths, modes, contents).
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00"))
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func via(res *Result) string {
	var s []string
	for _, info := range res.Servers {
		s = append(s, info.Name+": "+info.Via)
	}
	return strings.Join(s, "; ")
}

// A cargo workspace of two members, b using a: a change to a that breaks
// b is rejected naming b (cargo checks every crate of the workspace, so
// dependants are covered by construction); a clean change is clean; the
// user's tree is untouched and gets no target/.
func TestValidateCargoWorkspace(t *testing.T) {
	requireTool(t, "cargo")
	files := map[string]string{
		"Cargo.toml":   "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
		"a/Cargo.toml": "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"a/src/lib.rs": "pub fn f(x: i32) -> i32 {\n    x\n}\n",
		"b/Cargo.toml": "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\na = { path = \"../a\" }\n",
		"b/src/lib.rs": "pub fn g() -> i32 {\n    let unused = 1;\n    a::f(2)\n}\n",
	}
	dir := t.TempDir()
	testfs.Write(t, dir, files)
	h := newHarnessAt(t, dir, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir()}})
	before := treeHash(t, dir)

	t.Run("a change that breaks the dependant", func(t *testing.T) {
		res := h.validate(map[string]string{"a/src/lib.rs": "pub fn f(x: &str) -> usize {\n    x.len()\n}\n"})
		expect(t, res, Rejected, "b/src/lib.rs")
		if !strings.Contains(via(res), "checked by cargo check") {
			t.Errorf("the verdict does not name cargo check: %s", via(res))
		}
	})
	t.Run("a clean change, warm", func(t *testing.T) {
		res := h.validate(map[string]string{"a/src/lib.rs": "pub fn f(x: i32) -> i32 {\n    x + 1\n}\n\npub fn h() {}\n"})
		expect(t, res, Clean)
		if !strings.Contains(via(res), "state was warm") {
			t.Errorf("a second check is not warm: %s", via(res))
		}
	})
	t.Run("an earlier change is not taken as built", func(t *testing.T) {
		// b changes alone; a's last build in Anvil's state was of a
		// change, which cargo would take as current by time stamps.
		res := h.validate(map[string]string{"b/src/lib.rs": "pub fn g() -> i32 {\n    a::f(2) + a::f(3)\n}\n"})
		expect(t, res, Clean)
		res = h.validate(map[string]string{"b/src/lib.rs": "pub fn g() -> i32 {\n    a::h();\n    a::f(2)\n}\n"})
		expect(t, res, Rejected, "b/src/lib.rs")
	})
	t.Run("a run that stopped keeps what it rewrote", func(t *testing.T) {
		// a gains k in a change; the next run's workspace manifest does
		// not parse, so cargo builds nothing, and a's last build is
		// still the change's: the run after must build a again from the
		// disk, which has no k.
		expect(t, h.validate(map[string]string{"a/src/lib.rs": "pub fn f(x: i32) -> i32 {\n    x\n}\n\npub fn k() {}\n"}), Clean)
		expect(t, h.validate(map[string]string{"Cargo.toml": "[workspace\n"}), Rejected, "Cargo.toml")
		expect(t, h.validate(map[string]string{"b/src/lib.rs": "pub fn g() -> i32 {\n    a::k();\n    a::f(2)\n}\n"}), Rejected, "b/src/lib.rs")
	})
	t.Run("a file no crate compiles", func(t *testing.T) {
		// Not declared by any `mod`: cargo never reads it, and its
		// silence about it is no evidence.
		res := h.validate(map[string]string{"a/src/orphan.rs": "pub fn broken() -> i32 { \"s\" }\n"})
		if res.Verdict != Unverified || !strings.Contains(res.Summary(), "orphan.rs") {
			t.Errorf("a file no target compiles: %s", res.Summary())
		}
		res = h.validate(map[string]string{
			"a/src/orphan.rs": "pub fn fine() -> i32 { 1 }\n",
			"a/src/lib.rs":    "pub mod orphan;\n\npub fn f(x: i32) -> i32 {\n    x\n}\n",
		})
		expect(t, res, Clean)
	})
	t.Run("a manifest that does not parse", func(t *testing.T) {
		res := h.validate(map[string]string{"a/Cargo.toml": "[package\nname = \"a\"\n"})
		expect(t, res, Rejected, "a/Cargo.toml")
	})
	t.Run("cargo's configuration", func(t *testing.T) {
		// b's unused variable is a warning until the workspace's cargo
		// configuration denies warnings; it was "not code" (a virtual
		// workspace's .cargo/ is in no crate).
		res := h.validate(map[string]string{".cargo/config.toml": "[build]\nrustflags = [\"-D\", \"warnings\"]\n"})
		expect(t, res, Rejected, "b/src/lib.rs")
	})
	if after := treeHash(t, dir); after != before {
		t.Errorf("the user's tree changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "target")); err == nil {
		t.Errorf("cargo wrote the user's target/")
	}
}

// debianCrate copies a crate of Debian's registry (librust-*-dev).
func debianCrate(t testing.TB, name, to string) {
	t.Helper()
	src := filepath.Join("/usr/share/cargo/registry", name)
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("%s: %v (run scripts/install-deps.sh: it installs Debian's crate sources)", name, err)
	}
	if out, err := exec.Command("cp", "-r", src, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
}

// Real code: Debian's form_urlencoded with its dependency, Debian's
// percent-encoding, vendored through a [source] replacement, all offline.
// And both as members of one workspace, where a change to
// percent-encoding that form_urlencoded's use no longer fits is rejected
// naming form_urlencoded; the user's tree and target/ are untouched.
func TestValidateCargoRealCrates(t *testing.T) {
	requireTool(t, "cargo")
	t.Run("vendored", func(t *testing.T) {
		dir := t.TempDir()
		debianCrate(t, "form_urlencoded-1.1.0", filepath.Join(dir, "ws"))
		ws := filepath.Join(dir, "ws")
		os.MkdirAll(filepath.Join(ws, "vendor"), 0o755)
		debianCrate(t, "percent-encoding-2.2.0", filepath.Join(ws, "vendor", "percent-encoding-2.2.0"))
		testfs.Write(t, ws, map[string]string{".cargo/config.toml": "[source.crates-io]\nreplace-with = \"debian\"\n\n[source.debian]\ndirectory = \"vendor\"\n"})
		os.MkdirAll(filepath.Join(ws, "target"), 0o755)
		testfs.Write(t, ws, map[string]string{"target/keep": "the user's"})
		h := newHarnessAt(t, ws, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir()}})
		before := treeHash(t, ws)
		lib := h.read("src/lib.rs")
		expect(t, h.validate(map[string]string{"src/lib.rs": lib + "\n/// Counts pairs.\npub fn count(input: &[u8]) -> usize {\n    parse(input).count()\n}\n"}), Clean)
		expect(t, h.validate(map[string]string{"src/lib.rs": strings.Replace(lib, "percent_encode_byte(first)", "percent_encode_byte(first, 1)", 1)}), Rejected, "src/lib.rs")
		if treeHash(t, ws) != before {
			t.Errorf("the user's tree or target/ changed")
		}
	})
	t.Run("workspace", func(t *testing.T) {
		ws := t.TempDir()
		debianCrate(t, "percent-encoding-2.2.0", filepath.Join(ws, "percent-encoding"))
		debianCrate(t, "form_urlencoded-1.1.0", filepath.Join(ws, "form_urlencoded"))
		manifest := filepath.Join(ws, "form_urlencoded", "Cargo.toml")
		data, _ := os.ReadFile(manifest)
		os.WriteFile(manifest, []byte(strings.Replace(string(data), "[dependencies.percent-encoding]\n", "[dependencies.percent-encoding]\npath = \"../percent-encoding\"\n", 1)), 0o644)
		testfs.Write(t, ws, map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"percent-encoding\", \"form_urlencoded\"]\nresolver = \"2\"\n"})
		h := newHarnessAt(t, ws, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir()}})
		before := treeHash(t, ws)
		pe := h.read("percent-encoding/src/lib.rs")
		if !strings.Contains(pe, "pub fn percent_encode_byte(byte: u8) -> &'static str") {
			t.Fatal("percent-encoding changed: the seeded change no longer applies")
		}
		res := h.validate(map[string]string{"percent-encoding/src/lib.rs": strings.Replace(pe, "pub fn percent_encode_byte(byte: u8) -> &'static str", "pub(crate) fn percent_encode_byte(byte: u8) -> &'static str", 1)})
		if res.Verdict != Rejected || !strings.Contains(strings.Join(res.NewErrorFiles(), ","), "form_urlencoded/src/lib.rs") {
			t.Fatalf("want form_urlencoded rejected:\n%s", describe(res))
		}
		expect(t, h.validate(map[string]string{"percent-encoding/src/lib.rs": pe + "\n/// A doc.\npub fn nothing() {}\n"}), Clean)
		if treeHash(t, ws) != before {
			t.Errorf("the user's tree changed")
		}
		if _, err := os.Stat(filepath.Join(ws, "target")); err == nil {
			t.Errorf("cargo wrote the user's target/")
		}
	})
}

// [check] on real code: mypy over Debian's requests sources. A change to
// a module that its importer's use no longer fits is rejected naming the
// importer; a clean change is clean; the verdict names the command.
// Output that cannot be read is unverified, never clean.
func TestValidateProjectCheck(t *testing.T) {
	requireTool(t, "mypy")
	src := "/usr/lib/python3/dist-packages/requests"
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("%s: %v (run scripts/install-deps.sh: it installs python3-requests)", src, err)
	}
	ws := t.TempDir()
	if out, err := exec.Command("cp", "-r", src, filepath.Join(ws, "requests")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	check := &ProjectCheck{Command: "mypy --show-column-numbers --show-error-codes --check-untyped-defs --follow-imports=silent --ignore-missing-imports requests", Format: diagformat.Mypy, Files: []string{"**/*.py"}}
	h := newHarnessAt(t, ws, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir(), Check: check}})
	before := treeHash(t, ws)
	utils := h.read("requests/utils.py")
	const sig = "def to_key_val_list(value):"
	if !strings.Contains(utils, sig) {
		t.Fatal("requests changed: the seeded change no longer applies")
	}
	res := h.validate(map[string]string{"requests/utils.py": strings.Replace(utils, sig, "def to_key_val_list(value) -> int:\n    return 0\n\n\ndef _old_to_key_val_list(value):", 1)})
	if res.Verdict != Rejected || !strings.Contains(strings.Join(res.NewErrorFiles(), ","), "requests/models.py") {
		t.Fatalf("want the importer requests/models.py rejected:\n%s", describe(res))
	}
	if !strings.Contains(via(res), "checked by `mypy") || !strings.Contains(via(res), "(mypy format)") {
		t.Errorf("the verdict does not name the command: %s", via(res))
	}
	expect(t, h.validate(map[string]string{"requests/utils.py": utils + "\n\ndef _unused() -> int:\n    return 1\n"}), Clean)
	if treeHash(t, ws) != before {
		t.Errorf("the user's tree changed")
	}

	for _, tc := range []struct{ name, command string }{
		{"failing without a diagnostic", "echo 'Traceback (most recent call last):'; exit 1"},
		{"killed", "sh -c 'kill -9 $$'"},
		{"silent", "true"},
		{"stopped early with nothing new", "echo 'requests/api.py:1: error: invalid syntax  [syntax]'; exit 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessAt(t, ws, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir(),
				Check: &ProjectCheck{Command: tc.command, Format: diagformat.Mypy, Files: []string{"**/*.py"}}}})
			res := h.validate(map[string]string{"requests/utils.py": utils + "\n"})
			if res.Verdict != Unverified {
				t.Fatalf("verdict %s, want unverified:\n%s", res.Verdict, describe(res))
			}
		})
	}
}

// With neither languages nor files, [check] covers the source and
// configuration files no server checks: a Go file and go.mod stay
// gopls's, a Java file and a Rust manifest are the command's.
func TestProjectCheckDefaultCoverage(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"go.mod": "module x\n"})
	h := newHarnessAt(t, dir, harnessOptions{noDeps: true,
		overrides: []servers.Spec{{Name: "gopls", Command: "/bin/true"}},
		opts:      Options{BatchStateDir: t.TempDir(), Check: &ProjectCheck{Command: "make check", Format: diagformat.GCC}}})
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"main.go", false}, {"go.mod", false}, {"src/App.java", true}, {"Cargo.toml", true}, {"README.md", false},
	} {
		if got := h.v.projectCheckerFor(tc.path) != nil; got != tc.want {
			t.Errorf("%s: covered by [check] = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// A project's own checker runs the project's code (as cargo's build
// scripts do): it gets the sealed environment and sees no credential
// store, whatever the user's environment holds.
func TestProjectCheckSeesNoSecrets(t *testing.T) {
	home := t.TempDir()
	testfs.Write(t, home, map[string]string{".netrc": "machine x password HOME-SECRET\n"})
	t.Setenv("ANVIL_TEST_API_KEY", "ENV-SECRET")
	ws := t.TempDir()
	testfs.Write(t, ws, map[string]string{"a.txt": "a\n"})
	// The command reports what it saw as a diagnostic of a.txt.
	check := &ProjectCheck{Command: `echo "a.txt:1:1: error: saw [$ANVIL_TEST_API_KEY] [$(cat ` + home + `/.netrc 2>/dev/null)] [$(cat a.txt)]"; exit 1`,
		Format: diagformat.GCC, Files: []string{"*.txt"}}
	h := newHarnessAt(t, ws, harnessOptions{noDeps: true, hidden: []string{filepath.Join(home, ".netrc")}, opts: Options{BatchStateDir: t.TempDir(), Check: check}})
	res := h.validate(map[string]string{"a.txt": "b\n"})
	all := describe(res)
	if strings.Contains(all, "SECRET") {
		t.Errorf("the project's checker saw a secret:\n%s", all)
	}
	if !strings.Contains(all, "[b]") {
		t.Errorf("the checker did not run over the change:\n%s", all)
	}
}

// The end of a hooked turn asks what the way back to the turn's start
// resolves: here the disk's a breaks b, and the change that puts a back
// must resolve b's errors, although b is not a file it changes (cargo
// says nothing of b after it; the errors were dropped as never asked
// about, and the turn ended clean).
func TestTheWayBackResolvesWhatCargoFoundInDependants(t *testing.T) {
	requireTool(t, "cargo")
	a := "pub fn f(x: i32) -> i32 {\n    x\n}\n"
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"Cargo.toml":   "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
		"a/Cargo.toml": "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"a/src/lib.rs": "pub fn f(x: &str) -> usize {\n    x.len()\n}\n",
		"b/Cargo.toml": "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\na = { path = \"../a\" }\n",
		"b/src/lib.rs": "pub fn g() -> i32 {\n    a::f(2)\n}\n",
	})
	h := newHarnessAt(t, dir, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir()}})
	res := h.validateScope(map[string]string{"a/src/lib.rs": a}, Scope{Complete: true})
	expect(t, res, Clean)
	var resolved []string
	for _, d := range res.Resolved {
		resolved = append(resolved, d.Path)
	}
	if !slices.Contains(resolved, "b/src/lib.rs") {
		t.Errorf("the way back resolves nothing in b/src/lib.rs (resolved: %v)\n%s", resolved, describe(res))
	}
}
