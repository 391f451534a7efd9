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
)

// run starts sh -c script as spec says and returns what it printed.
func runScript(t *testing.T, contain *Containment, script string) string {
	t.Helper()
	var stderr strings.Builder
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Stderr: &stderr, Contain: contain})
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
	cmd := exec.Command(bin, "-test.run=^TestContainedProcessCannotReadHiddenPlaces$", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/", "TMPDIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
