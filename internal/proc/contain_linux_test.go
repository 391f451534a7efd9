package proc

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// runScript starts sh -c script, contained as contain says, and returns
// what it printed.
func runScript(t *testing.T, contain *Containment, script string) string {
	t.Helper()
	return runScriptIn(t, contain, script, "", []string{"PATH=/usr/bin:/bin"})
}

// runScriptIn is runScript in the directory dir with the environment env.
func runScriptIn(t *testing.T, contain *Containment, script, dir string, env []string) string {
	t.Helper()
	var stderr strings.Builder
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", script}, Dir: dir, Env: env, Stderr: &stderr, Contain: contain})
	if err != nil {
		t.Fatal(err)
	}
	if p.Contained() != (contain != nil) {
		t.Errorf("contained: %v, with a containment: %v", p.Contained(), contain != nil)
	}
	p.Stdin().Close()
	out, _ := io.ReadAll(p.Stdout())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		p.Kill()
		t.Fatalf("%s did not end: %v", script, err)
	}
	return string(out) + stderr.String()
}

// A contained process reads neither a hidden directory nor a hidden file,
// directly or through a link planted beside its work (as a workspace's
// include/k.h → ~/.ssh/id_rsa), cannot uncover them, and reads the rest.
func TestContainedProcessCannotReadHiddenPlaces(t *testing.T) {
	home := t.TempDir()
	ssh := filepath.Join(home, ".ssh")
	os.Mkdir(ssh, 0o700)
	os.WriteFile(filepath.Join(ssh, "id_rsa"), []byte("KEY-LINE-1\n"), 0o600)
	os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine x password NETRC-SECRET\n"), 0o600)
	// A hidden place that is a link (dotfiles): what it names is covered.
	os.MkdirAll(filepath.Join(home, "dotfiles", "aws"), 0o700)
	os.WriteFile(filepath.Join(home, "dotfiles", "aws", "credentials"), []byte("AWS-SECRET\n"), 0o600)
	os.Symlink(filepath.Join(home, "dotfiles", "aws"), filepath.Join(home, ".aws"))
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "code.h"), []byte("WORKSPACE-CODE\n"), 0o644)
	os.Symlink(filepath.Join(ssh, "id_rsa"), filepath.Join(ws, "k.h"))
	os.Symlink(filepath.Join(home, ".netrc"), filepath.Join(ws, "n.h"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	read := "cat " + filepath.Join(ws, "code.h") + " " + filepath.Join(ws, "k.h") + " " + filepath.Join(ws, "n.h") + " " + filepath.Join(ssh, "id_rsa") + " " + filepath.Join(home, "dotfiles", "aws", "credentials") + "; ls -a " + ssh
	// Control: uncontained, the link leads to the key.
	if out := runScript(t, nil, read); !strings.Contains(out, "KEY-LINE-1") || !strings.Contains(out, "NETRC-SECRET") || !strings.Contains(out, "AWS-SECRET") {
		t.Fatalf("uncontained, the secrets were not read (the test proves nothing): %s", out)
	}
	contain := &Containment{Helper: exe, Hidden: []string{ssh, filepath.Join(home, ".netrc"), filepath.Join(home, ".aws"), filepath.Join(home, "absent")}}
	out := runScript(t, contain, read)
	if strings.Contains(out, "KEY-LINE-1") || strings.Contains(out, "NETRC-SECRET") || strings.Contains(out, "AWS-SECRET") || strings.Contains(out, "id_rsa\n") {
		t.Fatalf("contained, a hidden place was read: %s", out)
	}
	if !strings.Contains(out, "WORKSPACE-CODE") {
		t.Fatalf("contained, the workspace was not read: %s", out)
	}
	// Whatever user the test runs as (root included), the cover stays.
	out = runScript(t, contain, "umount "+ssh+" 2>&1; umount -l "+ssh+" 2>&1; cat "+filepath.Join(ssh, "id_rsa"))
	if strings.Contains(out, "KEY-LINE-1") {
		t.Fatalf("a contained process uncovered a hidden place: %s", out)
	}
	// The covers are the process's own: the host still sees the key.
	if data, _ := os.ReadFile(filepath.Join(ssh, "id_rsa")); string(data) != "KEY-LINE-1\n" {
		t.Fatalf("the host's file changed: %q", data)
	}
}

// Run as root, the test above runs again as nobody: without root the
// helper gets its right to mount through a user namespace, and the
// program must not keep it.
func TestContainedAsAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("running as another user needs root; TestContainedProcessCannotReadHiddenPlaces ran as this one")
		return
	}
	const nobody = 65534
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "proc-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "proc.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^(TestContainedProcessCannotReadHiddenPlaces|TestContainedHomeShowsOnlyWhatItIsGiven)$", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/", "TMPDIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Count(string(out), "--- PASS") != 2 {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// With the home covered, a contained process sees of it only what it is
// given (the workspace, a tool, a cache it writes): a secret no list
// names, reached by its path, by a link in the workspace or by ".." from
// its working directory, is not there; nothing it is shown is writable,
// the workspace and the toolchains neither, but the cache, which stays
// writable inside a shown folder; a hidden place inside a shown one stays
// hidden.
func TestContainedHomeShowsOnlyWhatItIsGiven(t *testing.T) {
	home := t.TempDir()
	write := func(rel, data string, mode os.FileMode) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(".config/app/token", "APP-SECRET\n", 0o600)
	write("notes.txt", "NOTES-SECRET\n", 0o600)
	write("proj/code.h", "WORKSPACE-CODE\n", 0o644)
	write("tools/bin/tool", "#!/bin/sh\necho TOOL-RAN\n", 0o755)
	write("libs/v1/lib.h", "LIB-HEADER\n", 0o644)
	write(".cargo/config.toml", "CARGO-CONFIG\n", 0o644)
	write(".cargo/credentials.toml", "CARGO-SECRET\n", 0o600)
	write(".gitconfig", "GIT-IDENTITY\n", 0o644)
	ws := filepath.Join(home, "proj")
	if err := os.Symlink(filepath.Join(home, ".config/app/token"), filepath.Join(ws, "k.h")); err != nil {
		t.Fatal(err)
	}
	// A toolchain named through links in the home: ~/go leads out of it,
	// ~/current leads to ~/tools.
	gopath := t.TempDir()
	if err := os.MkdirAll(filepath.Join(gopath, "pkg", "mod"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gopath, "pkg", "mod", "m.txt"), []byte("MODULE-CACHE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A link inside the shown workspace comes back with it; one to a
	// folder beside a shown place, through the workspace's folder.
	for link, target := range map[string]string{"go": gopath, "current": "tools", "proj/tools": "../tools", "proj/lib": "../libs/v1"} {
		if err := os.Symlink(target, filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(home, ".cache", "go-build")
	contain := &Containment{Helper: exe, Hidden: []string{filepath.Join(home, ".cargo/credentials.toml")}, Home: home,
		Shown:  []string{ws, filepath.Join(home, "current", "bin"), filepath.Join(home, "go"), filepath.Join(home, "proj", "lib"), filepath.Join(home, ".cargo"), filepath.Join(home, ".gitconfig"), filepath.Join(home, "absent"), filepath.Join(home, ".cache")},
		Caches: []string{cache}}
	script := `cat code.h k.h ../.config/app/token ../notes.txt ~/notes.txt ~/.cargo/config.toml ~/.cargo/credentials.toml ~/.gitconfig 2>&1
~/current/bin/tool
cat ~/go/pkg/mod/m.txt lib/lib.h
tools/bin/tool
echo x > ~/.cache/go-build/entry && echo CACHE-WRITTEN
echo x > ~/planted 2>/dev/null && echo HOME-WRITTEN
echo x > code.h.new && echo WORKSPACE-WRITTEN
echo x > ~/current/bin/planted && echo TOOL-WRITTEN
echo x > ~/.cache/planted && echo CACHE-FOLDER-WRITTEN
ls -a ~`
	run := func(contain *Containment) string {
		return runScriptIn(t, contain, script, ws, []string{"PATH=/usr/bin:/bin", "HOME=" + home})
	}
	if out := run(nil); !strings.Contains(out, "APP-SECRET") || !strings.Contains(out, "NOTES-SECRET") {
		t.Fatalf("uncontained, the secrets were not read (the test proves nothing): %s", out)
	}
	for _, p := range []string{"planted", "proj/code.h.new", "tools/bin/planted", ".cache/planted"} {
		os.Remove(filepath.Join(home, p))
	}
	out := run(contain)
	for _, secret := range []string{"APP-SECRET", "NOTES-SECRET", "CARGO-SECRET", "HOME-WRITTEN", "WORKSPACE-WRITTEN", "TOOL-WRITTEN", "CACHE-FOLDER-WRITTEN", "\nnotes.txt\n"} {
		if strings.Contains(out, secret) {
			t.Errorf("contained with the home covered, %s:\n%s", secret, out)
		}
	}
	for _, want := range []string{"WORKSPACE-CODE", "TOOL-RAN", "MODULE-CACHE", "LIB-HEADER", "CARGO-CONFIG", "GIT-IDENTITY", "CACHE-WRITTEN"} {
		if !strings.Contains(out, want) {
			t.Errorf("contained with the home covered, no %s:\n%s", want, out)
		}
	}
	// What the process wrote in its cache is on the host; the host's
	// home is as it was.
	if _, err := os.Stat(filepath.Join(cache, "entry")); err != nil {
		t.Errorf("the cache's entry is not on the host: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "code.h.new")); err == nil {
		t.Errorf("the workspace was written")
	}
	if data, _ := os.ReadFile(filepath.Join(home, "notes.txt")); string(data) != "NOTES-SECRET\n" {
		t.Errorf("the host's home changed: %q", data)
	}
}

func TestInstallationOf(t *testing.T) {
	for _, tc := range []struct{ program, want string }{
		{"/home/u/.nvm/versions/node/v20/bin/node", "/home/u/.nvm/versions/node/v20"},
		{"/home/u/bin/gopls", "/home/u/bin"},
		{"/home/u/.local/bin/pyright", "/home/u/.local/bin"},
		{"/home/u/gopls", "/home/u/gopls"},
		{"/home/u/tools/clangd/clangd", "/home/u/tools/clangd"},
	} {
		if got := installationOf(tc.program, "/home/u"); got != tc.want {
			t.Errorf("installationOf(%s) = %s, want %s", tc.program, got, tc.want)
		}
	}
}

// A place kept read-only (the workspace, wherever it lies) is read and
// not written, by its path or from inside it; a hidden place inside it
// stays hidden, and a cache inside it stays writable, whether the home
// around it is covered or not (a home inside the workspace is not).
func TestContainedProcessDoesNotWriteAReadOnlyPlace(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, covered := range []bool{false, true} {
		t.Run(map[bool]string{false: "the home not covered", true: "inside a covered home"}[covered], func(t *testing.T) {
			home := t.TempDir()
			ws := filepath.Join(home, "proj")
			testfs.Write(t, ws, map[string]string{"code.h": "WORKSPACE-CODE\n", "secret/key": "KEY-SECRET\n"})
			cache := filepath.Join(ws, ".cache", "go-build")
			script := `cat code.h secret/key 2>&1
echo x > ` + filepath.Join(ws, "planted") + ` && echo WRITTEN-BY-PATH
echo x > here && echo WRITTEN-FROM-INSIDE
mkdir sub && echo DIRECTORY-MADE
echo x > .cache/go-build/entry && echo CACHE-WRITTEN`
			contain := &Containment{Helper: exe, Hidden: []string{filepath.Join(ws, "secret")}, ReadOnly: []string{ws}, Caches: []string{cache}}
			if covered {
				contain.Home, contain.Shown = home, []string{ws}
			}
			out := runScriptIn(t, contain, script, ws, []string{"PATH=/usr/bin:/bin", "HOME=" + home})
			for _, bad := range []string{"KEY-SECRET", "WRITTEN-BY-PATH", "WRITTEN-FROM-INSIDE", "DIRECTORY-MADE"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s:\n%s", bad, out)
				}
			}
			for _, want := range []string{"WORKSPACE-CODE", "CACHE-WRITTEN"} {
				if !strings.Contains(out, want) {
					t.Errorf("no %s:\n%s", want, out)
				}
			}
			for _, p := range []string{"planted", "here", "sub"} {
				if _, err := os.Stat(filepath.Join(ws, p)); err == nil {
					t.Errorf("%s is on the host", p)
				}
			}
			if _, err := os.Stat(filepath.Join(cache, "entry")); err != nil {
				t.Errorf("the cache's entry is not on the host: %v", err)
			}
		})
	}
}
