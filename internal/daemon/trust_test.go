package daemon

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// trustHelpers makes the test binary, by its environment, a squatter's
// listener (ANVIL_TEST_SQUAT: listen on that socket and count the bytes
// anyone sends) or a client (ANVIL_TEST_DIAL: dial that socket, greet the
// daemon, and with ANVIL_TEST_COMMIT commit a file through it).
func trustHelpers() {
	if sock := os.Getenv("ANVIL_TEST_SQUAT"); sock != "" {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Chmod(sock, 0o777)
		os.WriteFile(sock+".ready", nil, 0o666)
		total := 0
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(0)
			}
			n, _ := io.Copy(io.Discard, c)
			c.Close()
			total += int(n)
			os.WriteFile(sock+".count", []byte(strconv.Itoa(total)), 0o666)
		}
	}
	if sock := os.Getenv("ANVIL_TEST_DIAL"); sock != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := Dial(ctx, sock)
		if err != nil {
			fmt.Println("refused:", err)
			os.Exit(0)
		}
		if ws := os.Getenv("ANVIL_TEST_COMMIT"); ws != "" {
			w, _ := c.Workspace(ws)
			content := "written from inside\n"
			out, err := w.Commit(ctx, specs(map[string]string{"pwned.txt": content}), "from a shadow tree", service.GateOptions{})
			fmt.Printf("commit: %+v %v\n", out, err)
		}
		fmt.Println("connected to pid", c.PID)
		os.Exit(0)
	}
}

// publicBinary returns a copy of the test binary that other users can
// run (the original sits in root's private build directory).
func publicBinary(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "anvil-trust-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "daemon.test")
	copyExecutable(t, os.Args[0], bin)
	return bin
}

func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// runAs runs the test binary with env as uid (the current user for -1)
// and returns its output.
func runAs(t *testing.T, uid int, env ...string) string {
	t.Helper()
	bin := os.Args[0]
	if uid >= 0 && uid != os.Geteuid() {
		bin = publicBinary(t)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=/"}, env...)
	if uid >= 0 && uid != os.Geteuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %d: %v\n%s", uid, err, out)
	}
	return string(out)
}

// A socket another user made is refused before a byte is sent: its
// directory theirs, a directory others may enter, or a listener running as
// them. As root, each case runs with root and with nobody as the victim.
func TestSquattedSocketIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("making another user's socket needs root; the suite runs unprivileged")
		return
	}
	const nobody, squatter = 65534, 1 // uid 1: Debian's "daemon"
	for _, victim := range []int{0, nobody} {
		for _, tc := range []struct {
			name  string
			setup func(t *testing.T, dir string) // dir: the socket's directory, before the squatter listens
			after func(t *testing.T, dir, sock string)
		}{
			{"the directory is the squatter's", func(t *testing.T, dir string) {
				chown(t, dir, squatter, 0o700)
			}, nil},
			{"a directory others may enter", func(t *testing.T, dir string) {
				chown(t, dir, victim, 0o777)
			}, nil},
			{"the listener runs as the squatter", func(t *testing.T, dir string) {
				chown(t, dir, victim, 0o777)
			}, func(t *testing.T, dir, sock string) {
				// The directory and the socket look the victim's; only the
				// process behind them is not.
				chown(t, sock, victim, 0o600)
				chown(t, dir, victim, 0o700)
			}},
		} {
			t.Run(fmt.Sprintf("victim %d: %s", victim, tc.name), func(t *testing.T) {
				base, err := os.MkdirTemp("", "anvil-squat-")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(base) })
				os.Chmod(base, 0o755)
				dir := filepath.Join(base, "anvil")
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				tc.setup(t, dir)
				sock := filepath.Join(dir, "daemon.sock")
				if tc.setup != nil && tc.after != nil {
					os.Chmod(dir, 0o777) // the squatter's way in, closed again below
				}
				listener := exec.Command(publicBinary(t), "-test.run=^$")
				listener.Env = []string{"ANVIL_TEST_SQUAT=" + sock}
				listener.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: squatter, Gid: squatter}}
				listener.Stderr = os.Stderr
				if err := listener.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { listener.Process.Kill(); listener.Wait() })
				waitFor(t, sock+".ready")
				if tc.after != nil {
					tc.after(t, dir, sock)
				}
				out := runAs(t, victim, "ANVIL_TEST_DIAL="+sock)
				if !strings.Contains(out, "refused:") || !strings.Contains(out, "nothing was sent") {
					t.Fatalf("the victim's client: %s", out)
				}
				time.Sleep(100 * time.Millisecond)
				if n, _ := os.ReadFile(sock + ".count"); len(n) > 0 && string(n) != "0" {
					t.Fatalf("the squatter received %s bytes", n)
				}
				t.Logf("%s", strings.TrimSpace(out))
			})
		}
	}
}

func chown(t *testing.T, p string, uid int, mode os.FileMode) {
	t.Helper()
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, p string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", p)
}

// A process in a shadow tree runs as the same user, mapped through a user
// namespace of its own: the daemon refuses it, so code under test cannot
// drive the gate that writes the user's files.
func TestShadowTreeCannotDriveTheDaemon(t *testing.T) {
	e := newEnv(t)
	// The shadow tree hides the runtime directory and has a /tmp of its
	// own, so the daemon's socket is out of its sight wherever Anvil puts
	// it. To test the daemon's own refusal, behind that, this socket is
	// where the tree can see it.
	sockDir, err := os.MkdirTemp("/var/tmp", "anvil-d-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	e.socket = filepath.Join(sockDir, "d", "daemon.sock")
	var log strings.Builder
	e.serve(t, Options{Log: &syncWriter{w: &log}})
	ws := testfs.Tree(t, map[string]string{"a.txt": "a\n"})
	// The test binary, where a command in the shadow tree can run it.
	bin := filepath.Join(ws, "daemon.test")
	copyExecutable(t, os.Args[0], bin)
	ctx, cancel := untilDeadline(t)
	defer cancel()
	// Outside a shadow tree the same client connects: the refusal below
	// is the namespace's doing.
	if out := runAs(t, -1, "ANVIL_TEST_DIAL="+e.socket); !strings.Contains(out, "connected") {
		t.Fatalf("a client outside any shadow tree: %s", out)
	}
	res, err := sandbox.Run(ctx, sandbox.Spec{Seal: &sandbox.Seal{Host: sandbox.HostPlaces{TempDir: os.TempDir(), RuntimeDir: os.Getenv("XDG_RUNTIME_DIR")}}, Root: ws, Argv: []string{bin, "-test.run=^$"},
		Env: []string{"PATH=" + os.Getenv("PATH"), "ANVIL_TEST_DIAL=" + e.socket, "ANVIL_TEST_COMMIT=" + ws}, Visible: []string{sockDir}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	t.Logf("inside the shadow tree: %s", strings.TrimSpace(out))
	if strings.Contains(out, "connected") || strings.Contains(out, "commit:") {
		t.Fatalf("a process in a shadow tree used the daemon:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned.txt")); err == nil {
		t.Fatal("the shadow tree's process wrote the user's workspace")
	}
	if !strings.Contains(log.String(), "refused a connection: it runs in another") {
		t.Errorf("the daemon's log says nothing of a refusal:\n%s", log.String())
	}
}

// syncWriter serialises writes from the daemon's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// The shadow tree's refusal holds for an unprivileged user too: as root,
// the test binary runs the case again as nobody.
func TestShadowTreeRefusedUnprivileged(t *testing.T) {
	if os.Getenv("DAEMON_TEST_UNPRIVILEGED") != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Geteuid() != 0 {
		t.Log("the suite runs unprivileged: the case above was")
		return
	}
	work, err := os.MkdirTemp("", "anvil-daemon-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	os.Chmod(work, 0o777)
	cmd := exec.Command(publicBinary(t), "-test.run=^TestShadowTreeCannotDriveTheDaemon$", "-test.v")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + work, "HOME=" + work, "DAEMON_TEST_UNPRIVILEGED=1"}
	cmd.Dir = work
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestShadowTreeCannotDriveTheDaemon") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
