package session

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// newEnv makes the test binary a run of another user: it creates a
// session directory in its default base and prints it.
const newEnv = "ANVIL_TEST_NEW_SESSION"

func TestMain(m *testing.M) {
	if os.Getenv(newEnv) != "" {
		s, err := New(DefaultBase(os.Getenv), time.Now())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(s.Dir)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The default base is the user's own: anvil-UID in $TMPDIR, else /tmp.
func TestDefaultBaseIsPerUser(t *testing.T) {
	uid := fmt.Sprint(os.Getuid())
	for _, tc := range []struct{ tmpdir, want string }{
		{"", "/tmp/anvil-" + uid},
		{"/var/tmp", "/var/tmp/anvil-" + uid},
		{"relative", "/tmp/anvil-" + uid},
	} {
		getenv := func(k string) string {
			if k == "TMPDIR" {
				return tc.tmpdir
			}
			return ""
		}
		if got := DefaultBase(getenv); got != tc.want {
			t.Errorf("TMPDIR=%q: %s, want %s", tc.tmpdir, got, tc.want)
		}
	}
}

// A base someone else could have planted is never used: owned by another
// user, writable by others, a symlink. Nothing is created in it.
func TestNewRefusesABaseNotTheUsers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, base string)
		want  string
	}{
		{"owned by another user", func(t *testing.T, base string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to plant another user's directory")
			}
			mkdir(t, base, 0o700)
			if err := os.Chown(base, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "is owned by another user (uid 65534)"},
		{"writable by others", func(t *testing.T, base string) {
			mkdir(t, base, 0o700)
			os.Chmod(base, 0o777)
		}, "can be written by others"},
		{"a symlink", func(t *testing.T, base string) {
			target := filepath.Join(filepath.Dir(base), "elsewhere")
			mkdir(t, target, 0o700)
			if err := os.Symlink(target, base); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), fmt.Sprintf("anvil-%d", os.Getuid()))
			tc.plant(t, base)
			_, err := New(base, time.Now())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "ANVIL_SESSION_DIR") {
				t.Fatalf("New in a planted base: %v", err)
			}
			if entries, _ := os.ReadDir(base); len(entries) != 0 {
				t.Errorf("created in the planted base: %v", entries)
			}
		})
	}
}

// A second local user runs beside the first: each has a base of their
// own in the shared temporary directory (with one base for all, the
// first user's 0700 directory locked the second out).
func TestSecondUserRunsBesideTheFirst(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as a second user")
	}
	shared := publicDir(t, 0o1777) // what /tmp is
	first, err := New(DefaultBase(func(k string) string { return map[string]string{"TMPDIR": shared}[k] }), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	bin := filepath.Join(publicDir(t, 0o755), "session.test")
	copyFile(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = []string{newEnv + "=1", "TMPDIR=" + shared, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the second user's run: %v\n%s", err, out)
	}
	dir := strings.TrimSpace(string(out))
	if want := filepath.Join(shared, "anvil-65534") + "/"; !strings.HasPrefix(dir, want) {
		t.Errorf("the second user's run directory is %s, want one under %s", dir, want)
	}
	if !strings.HasPrefix(first.Dir, filepath.Join(shared, fmt.Sprintf("anvil-%d", os.Getuid()))+"/") {
		t.Errorf("the first user's run directory is %s", first.Dir)
	}
}

// Starting a run sweeps old run directories whose runs are gone, at most
// sweepMost at a time, and never a live run's (its lock held), a young
// one, another user's, a symlink or anything not named as a run.
func TestSweepRemovesOnlyOldRunsThatAreGone(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	mkdir(t, base, 0o700)
	old := time.Now().Add(-sweepAge - time.Hour)
	aged := func(name string) string {
		dir := filepath.Join(base, name)
		mkdir(t, dir, 0o700)
		os.WriteFile(filepath.Join(dir, "transcript.jsonl"), []byte("x\n"), 0o600)
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	var gone []string
	for i := range sweepMost + 3 {
		gone = append(gone, aged(fmt.Sprintf("20261101-000000-%06x", i)))
	}
	live := aged("20261102-000000-aaaaaa")
	lock, err := os.OpenFile(filepath.Join(live, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(live, old, old)
	keep := []string{live, aged("not-a-run"), filepath.Join(base, "20261103-000000-bbbbbb")}
	mkdir(t, keep[2], 0o700) // young
	if os.Geteuid() == 0 {
		theirs := aged("20261104-000000-cccccc")
		os.Chown(theirs, 65534, 65534)
		os.Chtimes(theirs, old, old)
		keep = append(keep, theirs)
	}
	target := aged("target")
	link := filepath.Join(base, "20261105-000000-dddddd")
	os.Symlink(target, link)
	keep = append(keep, target, link)

	s, err := New(base, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keep = append(keep, s.Dir)
	removed := 0
	for _, d := range gone {
		if _, err := os.Lstat(d); os.IsNotExist(err) {
			removed++
		}
	}
	if removed != sweepMost {
		t.Errorf("one start removed %d old run directories, want %d (the bound)", removed, sweepMost)
	}
	for _, d := range keep {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s was swept: %v", filepath.Base(d), err)
		}
	}
	// The next start takes the rest; a run's own directory is live.
	next, err := New(base, time.Now().Add(sweepAge+2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	for _, d := range append(gone, s.Dir) {
		_, err := os.Lstat(d)
		if live := d == s.Dir; live != (err == nil) {
			t.Errorf("%s after the second start: %v", filepath.Base(d), err)
		}
	}
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// publicDir is a directory other users can reach, with mode.
func publicDir(t *testing.T, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "anvil-session-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}
