package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestOpenFileConfined(t *testing.T) {
	outside := testfs.Tree(t, map[string]string{"secret.txt": "outside\n"})
	dir := testfs.Tree(t, map[string]string{
		"a.txt":        "inside\n",
		"src/b.ts":     "b\n",
		"vendor":       "->" + outside,
		"link.txt":     "->a.txt",
		"escape.txt":   "->" + filepath.Join(outside, "secret.txt"),
		"src/dots.txt": "->../../secret",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.ts"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := r.ReadFile("src/b.ts"); err != nil || string(data) != "b\n" {
		t.Fatalf("plain file: %q, %v", data, err)
	}
	for _, rel := range []string{"vendor/secret.txt", "escape.txt", "src/dots.txt"} {
		if data, err := r.ReadFile(rel); err == nil {
			t.Errorf("%s read %q through a symlink out of the root", rel, data)
		}
	}
	done := make(chan error, 1)
	go func() { _, err := r.ReadFile("pipe.ts"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO: err = %v, want it refused as not a regular file", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
}

// A directory swapped for a symlink to the outside while reads go on never
// lets a read return outside content: the bounded loop of the attack.
func TestOpenFileSymlinkSwapRace(t *testing.T) {
	outside := testfs.Tree(t, map[string]string{"d/f.txt": "OUTSIDE\n"})
	dir := testfs.Tree(t, map[string]string{"d/f.txt": "inside\n"})
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	swapped := make(chan int)
	go func() {
		n := 0
		d, real, link := filepath.Join(dir, "d"), filepath.Join(dir, "d.real"), filepath.Join(dir, "d.link")
		os.Symlink(filepath.Join(outside, "d"), link)
		for {
			select {
			case <-stop:
				swapped <- n
				return
			default:
			}
			os.Rename(d, real)
			os.Rename(link, d)
			os.Rename(d, link)
			os.Rename(real, d)
			n++
		}
	}()
	leaks, reads := 0, 0
	for range 3000 {
		data, err := r.ReadFile("d/f.txt")
		if err == nil {
			reads++
			if strings.Contains(string(data), "OUTSIDE") {
				leaks++
			}
		}
	}
	close(stop)
	n := <-swapped
	t.Logf("%d reads succeeded of 3000 during %d swaps", reads, n)
	if leaks > 0 {
		t.Fatalf("%d reads returned content from outside the workspace", leaks)
	}
}
