package sandbox

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

// The test binary is also the helper.
func TestMain(m *testing.M) {
	Main(os.Getenv)
	os.Exit(m.Run())
}

var tree = map[string]string{
	"node_modules/dep/index.js": "module.exports = 1;\n",
	"a.txt":                     "a\n",
	"b.txt":                     "b\n",
	"dir/keep.txt":              "keep\n",
	"dir/sub/x.txt":             "x\n",
	"run.sh":                    "#!/bin/sh\necho script\n",
}

func env() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()} }

func run(t *testing.T, ctx context.Context, spec Spec) *Result {
	t.Helper()
	res, err := Run(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The command sees the change set on the workspace's own path; whatever
// it writes, renames, deletes or chmods there, the user's tree is byte for
// byte what it was.
func TestShadowTreeHoldsTheChangeAndLeavesTheTree(t *testing.T) {
	for _, mech := range []string{MechanismOverlay, MechanismCopy} {
		t.Run(mech, func(t *testing.T) { testShadowTree(t, mech) })
	}
}

func testShadowTree(t *testing.T, mech string) {
	dir := testfs.Tree(t, tree)
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := testfs.Snapshot(t, dir)
	script := `set -e
test "$PWD" = "` + dir + `"
cat a.txt; test ! -e b.txt; cat new/n.txt
./run.sh
cat node_modules/dep/index.js
echo out > out.txt; mkdir -p __pycache__ build/deep; echo c > __pycache__/m.pyc
mv dir dir2; rm -rf dir2/sub; chmod 000 a.txt; ln -s /etc/passwd link
echo done`
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sh", "-c", script}, Mechanism: mech,
		Changes: []Change{{Path: "a.txt", Content: []byte("changed\n")}, {Path: "b.txt", Delete: true}, {Path: "new/n.txt", Content: []byte("n\n")}}})
	out := string(res.Output)
	if res.ExitCode != 0 || !strings.Contains(out, "changed\nn\nscript\nmodule.exports = 1;\n") || !strings.HasSuffix(out, "done\n") || res.Mechanism != mech {
		t.Fatalf("exit %d, mechanism %q:\n%s", res.ExitCode, res.Mechanism, out)
	}
	testfs.Unchanged(t, before, dir)
	if res.Setup <= 0 || res.Setup > res.Elapsed {
		t.Errorf("setup %v of %v", res.Setup, res.Elapsed)
	}
}

// The command cannot unmount the shadow tree to write beneath it.
func TestCommandCannotLeaveTheShadow(t *testing.T) {
	for _, mech := range []string{MechanismOverlay, MechanismCopy} {
		t.Run(mech, func(t *testing.T) {
			dir := testfs.Tree(t, tree)
			before := testfs.Snapshot(t, dir)
			script := `umount -l "$PWD" 2>&1 || echo refused; umount -l "$PWD/node_modules" 2>&1 || echo refused too
echo x > escaped.txt; echo y > node_modules/escaped.txt 2>&1 || echo read-only`
			res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Mechanism: mech, Argv: []string{"sh", "-c", script}})
			if !strings.Contains(string(res.Output), "refused\n") || !strings.Contains(string(res.Output), "refused too") {
				t.Errorf("umount was not refused:\n%s", res.Output)
			}
			testfs.Unchanged(t, before, dir)
		})
	}
}

// Without the network the command has a loopback interface of its own,
// up, and nothing else.
func TestNetworkIsOffByDefault(t *testing.T) {
	dir := testfs.Tree(t, tree)
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"cat", "/proc/net/dev"}})
	var ifaces []string
	for _, line := range strings.Split(string(res.Output), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && !strings.Contains(name, "|") {
			ifaces = append(ifaces, strings.TrimSpace(name))
		}
	}
	if len(ifaces) != 1 || ifaces[0] != "lo" {
		t.Fatalf("interfaces %v:\n%s", ifaces, res.Output)
	}
	conn := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: append(env(), "SANDBOX_TEST_LOOPBACK=1"), Argv: []string{inTree(t, dir), "-test.run=^TestLoopbackHelper$", "-test.v"}})
	if conn.ExitCode != 0 || !strings.Contains(string(conn.Output), "--- PASS: TestLoopbackHelper") {
		t.Fatalf("loopback unusable in the shadow (exit %d):\n%s", conn.ExitCode, conn.Output)
	}
}

// TestLoopbackHelper is run inside a shadow tree by TestNetworkIsOffByDefault.
func TestLoopbackHelper(t *testing.T) {
	if os.Getenv("SANDBOX_TEST_LOOPBACK") == "" {
		t.Skip("run only inside the shadow tree")
	}
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

// A command still running when ctx ends is killed with everything it
// started, within the bound.
func TestCancelKillsEverything(t *testing.T) {
	dir := testfs.Tree(t, tree)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := run(t, ctx, Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sh", "-c", "setsid sleep 3600 & sleep 3600"}})
	if !res.Killed || res.ExitCode != -1 || time.Since(start) > 5*time.Second {
		t.Fatalf("killed %v, exit %d, after %v", res.Killed, res.ExitCode, time.Since(start))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := sleepers()
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left running: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func sleepers() []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(b), "sleep\x003600") {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// Output past the limit keeps its end.
func TestOutputKeepsTheTail(t *testing.T) {
	dir := testfs.Tree(t, tree)
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), OutputLimit: 1000, Argv: []string{"sh", "-c", "seq 1 5000"}})
	if !res.Truncated || len(res.Output) != 1000 || !strings.HasSuffix(string(res.Output), "4999\n5000\n") {
		t.Fatalf("truncated %v, %d bytes, ends %q", res.Truncated, len(res.Output), res.Output[len(res.Output)-20:])
	}
}

// As an unprivileged user the same holds: the test binary runs itself as
// nobody (when the suite runs as root) on a tree nobody owns.
func TestUnprivileged(t *testing.T) {
	if os.Getenv("SANDBOX_TEST_UNPRIVILEGED") != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Geteuid() != 0 {
		t.Log("the suite runs unprivileged: every test above was")
		return
	}
	// t.TempDir's parent is private to root: nobody needs its own.
	work, err := os.MkdirTemp("", "anvil-sandbox-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "sandbox.test")
	copyFile(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run=^(TestShadowTreeHoldsTheChangeAndLeavesTheTree|TestCommandCannotLeaveTheShadow|TestNetworkIsOffByDefault|TestCancelKillsEverything|TestEscape.*|TestReportsComeBack)$", "-test.v")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + work, "HOME=" + work, "SANDBOX_TEST_UNPRIVILEGED=1"}
	cmd.Dir = work
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestShadowTreeHoldsTheChangeAndLeavesTheTree") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// inTree copies the test binary into the workspace dir, where a command
// in its shadow tree can run it (the host's /tmp, where go test keeps
// it, is not the command's), and returns its path.
func inTree(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "sandbox.test")
	if _, err := os.Stat(bin); err != nil {
		copyFile(t, os.Args[0], bin)
	}
	return bin
}

func copyFile(t *testing.T, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

// Where no shadow tree can be made, Run says why and runs nothing: here
// the scratch directory would be inside the workspace.
func TestUnavailableRunsNothing(t *testing.T) {
	dir := testfs.Tree(t, tree)
	t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := testfs.Snapshot(t, dir)
	_, err := Run(context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sh", "-c", "echo x > ran.txt"}})
	if !IsUnavailable(err) || !strings.Contains(err.Error(), "inside the workspace") {
		t.Fatalf("err = %v", err)
	}
	testfs.Unchanged(t, before, dir)
}
