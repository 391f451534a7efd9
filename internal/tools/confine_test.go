package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/search"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A directory swapped for a symlink to the outside while tools read never
// lets outside content through, whichever engine searches: the bounded
// loop of the attack that found 35 leaks in 300 tries.
func TestToolsUnderSymlinkSwap(t *testing.T) {
	outside := testfs.Tree(t, map[string]string{"d/f.ts": "export const SECRET_OUTSIDE = 1;\n"})
	root := newRoot(t, map[string]string{"d/f.ts": "export const inside = 1; // SECRET_\n"})
	tools := map[string]Tool{
		"read_file":          Adapt(NewReadFile(root)),
		"text_search rg":     Adapt(NewTextSearch(root, search.New(root, search.Options{}))),
		"text_search engine": Adapt(NewTextSearch(root, search.New(root, search.Options{LookPath: func(string) (string, error) { return "", os.ErrNotExist }}))),
	}
	args := map[string]string{
		"read_file":          `{"path": "d/f.ts"}`,
		"text_search rg":     `{"pattern": "SECRET_"}`,
		"text_search engine": `{"pattern": "SECRET_"}`,
	}
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		d, real, link := filepath.Join(root.Dir(), "d"), filepath.Join(root.Dir(), "d.real"), filepath.Join(root.Dir(), "d.link")
		os.Symlink(filepath.Join(outside, "d"), link)
		n := 0
		for {
			select {
			case <-stop:
				os.Rename(d, link)
				os.Rename(real, d)
				done <- n
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
	// 1,500 rounds: before reads were confined, read_file leaked about
	// once in 300 reads with this loop.
	const rounds = 1500
	leaks := map[string]int{}
	for range rounds {
		for name, tool := range tools {
			res, err := tool.Call(context.Background(), json.RawMessage(args[name]))
			if err == nil && strings.Contains(res.Output, "SECRET_OUTSIDE") {
				leaks[name]++
			}
		}
	}
	close(stop)
	t.Logf("%d swaps", <-done)
	for name, n := range leaks {
		t.Errorf("%s returned outside content %d times in %d", name, n, rounds)
	}
}

// Search never reads .git, whatever the glob names.
func TestTextSearchNeverReadsGit(t *testing.T) {
	root := newRoot(t, map[string]string{".git/config": "token = SECRET\n", "sub/.git/HEAD": "SECRET\n", "a.txt": "x\n"})
	for _, engine := range []search.Options{{}, {LookPath: func(string) (string, error) { return "", os.ErrNotExist }}} {
		tool := Adapt(NewTextSearch(root, search.New(root, engine)))
		for _, glob := range []string{".git/*", ".git/**", "sub/.git/*", "**/.git/**", "**/config", "*"} {
			res := call(t, tool, `{"pattern": "SECRET", "glob": "`+glob+`"}`)
			if strings.Contains(res.Output, "SECRET\n") || strings.Contains(res.Output, "token =") {
				t.Errorf("glob %s searched .git:\n%s", glob, res.Output)
			}
		}
	}
}

// A FIFO named like source is refused at once, by every tool that reads.
func TestFIFOIsRefused(t *testing.T) {
	root := newRoot(t, map[string]string{"a.ts": "x\n"})
	if err := syscall.Mkfifo(filepath.Join(root.Dir(), "x.ts"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := map[string]string{
		"read_file":   `{"path": "x.ts"}`,
		"text_search": `{"pattern": "x", "path": "x.ts"}`,
		"diagnostics": `{"paths": ["x.ts"]}`,
	}
	for name, args := range tools {
		var tool Tool
		switch name {
		case "read_file":
			tool = Adapt(NewReadFile(root))
		case "text_search":
			tool = Adapt(NewTextSearch(root, search.New(root, search.Options{})))
		case "diagnostics":
			tool = Adapt(NewDiagnostics(root, nil))
		}
		done := make(chan Result, 1)
		go func() { done <- call(t, tool, args) }()
		select {
		case res := <-done:
			if !res.IsError {
				t.Errorf("%s on a FIFO: %s, want a tool error", name, res.Output)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s blocked on a FIFO", name)
		}
	}
}

// A server reports a definition through a symlinked directory that leads
// out of the workspace: find_symbol shows no line of the outside file.
func TestFindSymbolThroughSymlinkedDir(t *testing.T) {
	root, parser, mgr := lspFixture(t, "ts")
	outside := testfs.Tree(t, map[string]string{"lib.ts": "export const outsideValue = 42; // OUTSIDE_LINE\n"})
	if err := os.Symlink(outside, filepath.Join(root.Dir(), "src", "vendor")); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, root.Dir(), map[string]string{"src/use.ts": "import { outsideValue } from \"./vendor/lib\";\nexport const v = outsideValue;\n"})
	res := call(t, Adapt(NewFindSymbol(root, parser, mgr, search.New(root, search.Options{}))), `{"path": "src/use.ts", "line": 2, "name": "outsideValue"}`)
	if strings.Contains(res.Output, "OUTSIDE_LINE") {
		t.Fatalf("find_symbol printed a line from outside the workspace:\n%s", res.Output)
	}
}
