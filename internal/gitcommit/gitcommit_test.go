package gitcommit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// repoWith makes a repository with files committed, on branch main.
func repoWith(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := testfs.Tree(t, files)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Test"}, {"config", "user.email", "test@example.com"}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		git(t, dir, args...)
	}
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// write is what the journal does: the change set written to the work tree;
// it returns the change set's files as Commit takes them.
func write(t *testing.T, dir string, changes map[string]string) []File {
	t.Helper()
	var files []File
	for p, content := range changes {
		base, err := os.ReadFile(filepath.Join(dir, p))
		f := File{Path: p, Base: base, BaseExists: err == nil, New: []byte(content)}
		if content == "" {
			f.Delete, f.New = true, nil
			os.Remove(filepath.Join(dir, p))
		} else {
			testfs.Write(t, dir, map[string]string{p: content})
		}
		files = append(files, f)
	}
	return files
}

// The user's staged and unstaged work, in the same files as Anvil's change
// and in others, is kept byte for byte, in the work tree and in the
// index; the commit holds Anvil's change only; git status afterwards
// shows the user's work as it was and nothing of Anvil's. Undo reverts it.
func TestCommitKeepsTheUsersWork(t *testing.T) {
	dir := repoWith(t, map[string]string{
		"a.go":      "package a\n\n// A is one.\nconst A = 1\n\n// B is two.\nconst B = 2\n",
		"b.go":      "package a\n\nconst C = 3\n",
		"staged.go": "package a\n\nconst S = 1\n",
		"other.go":  "package a\n\nconst O = 1\n",
	})
	// The user's work: a staged change in another file, unstaged changes
	// in another file and in the file Anvil changes (away from its change).
	testfs.Write(t, dir, map[string]string{"staged.go": "package a\n\nconst S = 2 // staged\n", "other.go": "package a\n\nconst O = 2 // unstaged\n"})
	git(t, dir, "add", "staged.go")
	testfs.Write(t, dir, map[string]string{"a.go": "package a\n\n// A is one, said the user.\nconst A = 1\n\n// B is two.\nconst B = 2\n"})
	statusBefore := git(t, dir, "status", "--porcelain")
	stagedBefore := git(t, dir, "diff", "--cached")

	files := write(t, dir, map[string]string{
		"a.go":   "package a\n\n// A is one, said the user.\nconst A = 1\n\n// B is two.\nconst B = 20\n",
		"b.go":   "",                           // deleted
		"new.go": "package a\n\nconst N = 1\n", // created
	})
	res, err := Commit(context.Background(), dir, files, "Anvil: change B", Options{Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Current || res.Branch != "main" {
		t.Fatalf("result %+v", res)
	}
	if got := git(t, dir, "status", "--porcelain"); got != statusBefore {
		t.Errorf("git status changed:\nbefore:\n%s\nafter:\n%s", statusBefore, got)
	}
	if got := git(t, dir, "diff", "--cached"); got != stagedBefore {
		t.Errorf("the staged work changed:\n%s", got)
	}
	show := git(t, dir, "show", "--stat", "--format=%s", "HEAD")
	for _, want := range []string{"Anvil: change B", "a.go", "b.go", "new.go"} {
		if !strings.Contains(show, want) {
			t.Errorf("the commit lacks %s:\n%s", want, show)
		}
	}
	if strings.Contains(show, "staged.go") || strings.Contains(show, "other.go") {
		t.Errorf("the commit took the user's work:\n%s", show)
	}
	if committed := git(t, dir, "show", "HEAD:a.go"); strings.Contains(committed, "said the user") || !strings.Contains(committed, "const B = 20") {
		t.Errorf("a.go as committed should be Anvil's change alone:\n%s", committed)
	}
	if got := testfs.Snapshot(t, dir)["other.go"]; got != "package a\n\nconst O = 2 // unstaged\n" {
		t.Errorf("other.go changed: %q", got)
	}

	// Undo: the journal restores the files, then the commit is reverted.
	for _, f := range files {
		if f.BaseExists {
			testfs.Write(t, dir, map[string]string{f.Path: string(f.Base)})
		} else {
			os.Remove(filepath.Join(dir, f.Path))
		}
	}
	rev, err := Revert(context.Background(), dir, res, files, "Revert \"Anvil: change B\"", Options{Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if rev.Commit == res.Commit || strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")) != rev.Commit || strings.TrimSpace(git(t, dir, "rev-parse", "HEAD~1")) != res.Commit {
		t.Fatal("no revert commit on top of the commit it reverts")
	}
	if diff := git(t, dir, "diff", "HEAD~2", "HEAD", "--", "a.go", "b.go", "new.go"); diff != "" {
		t.Errorf("the revert does not restore the branch's files:\n%s", diff)
	}
	if got := git(t, dir, "status", "--porcelain"); got != statusBefore {
		t.Errorf("git status after the revert:\n%s\nwant:\n%s", got, statusBefore)
	}
}

// A per-session branch: the commit goes there, created from HEAD; the
// checked-out branch and the index are untouched.
func TestCommitOnABranchOfItsOwn(t *testing.T) {
	dir := repoWith(t, map[string]string{"a.txt": "a\n"})
	head := git(t, dir, "rev-parse", "HEAD")
	files := write(t, dir, map[string]string{"a.txt": "b\n"})
	res, err := Commit(context.Background(), dir, files, "Anvil: b", Options{Env: os.Environ(), Branch: BranchFor("anvil/<slug>", "Make a into b")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "anvil/make-a-into-b" || res.Current {
		t.Fatalf("result %+v", res)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "show", "anvil/make-a-into-b:a.txt") != "b\n" || git(t, dir, "rev-parse", "anvil/make-a-into-b~1") != head {
		t.Fatal("the commit is not on its own branch from HEAD")
	}
}

// Each refusal says why and commits nothing.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"detached HEAD", func(t *testing.T, dir string) { git(t, dir, "checkout", "-q", "--detach") }, "detached"},
		{"a merge in progress", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".git", "MERGE_HEAD"), []byte(git(t, dir, "rev-parse", "HEAD")), 0o644)
		}, "a merge is in progress"},
		{"a rebase in progress", func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, ".git", "rebase-merge"), 0o755) }, "rebase"},
		{"staged changes in the file", func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{"a.txt": "staged\n"})
			git(t, dir, "add", "a.txt")
		}, "staged changes of yours"},
		{"not a repository", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, ".git")) }, "not in a git work tree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repoWith(t, map[string]string{"a.txt": "a\n"})
			tc.setup(t, dir)
			var head string
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
				head = git(t, dir, "rev-parse", "HEAD")
			}
			files := write(t, dir, map[string]string{"a.txt": "anvil\n"})
			_, err := Commit(context.Background(), dir, files, "Anvil", Options{Env: os.Environ()})
			if !IsRefused(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v", err)
			}
			if head != "" && git(t, dir, "rev-parse", "HEAD") != head {
				t.Fatal("committed anyway")
			}
		})
	}
}

// An unstaged edit of the user's that overlaps Anvil's change cannot be
// told apart from it: refused, nothing committed.
func TestOverlappingUnstagedEditRefuses(t *testing.T) {
	dir := repoWith(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	testfs.Write(t, dir, map[string]string{"a.txt": "one\nTWO (user)\nthree\n"})
	files := write(t, dir, map[string]string{"a.txt": "one\nTWO (user, then anvil)\nthree\n"})
	if _, err := Commit(context.Background(), dir, files, "Anvil", Options{Env: os.Environ()}); !IsRefused(err) || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("err = %v", err)
	}
}

// An untrusted workspace's repository that names programs in its own
// configuration for a commit to run — a clean filter for every file, a
// signing program — runs none of them: the commit is refused, saying
// how to trust it. Trusted, the filter runs as git add runs it.
func TestUntrustedRepositoryProgramsDoNotRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config func(dir, marker string) []string
		want   string
	}{
		{"a clean filter", func(dir, marker string) []string {
			testfs.Write(t, dir, map[string]string{".gitattributes": "*.txt filter=evil\n"})
			git(t, dir, "add", ".gitattributes")
			git(t, dir, "commit", "-q", "-m", "attributes")
			return []string{"filter.evil.clean", "sh -c 'touch " + marker + "; cat'"}
		}, "filter evil"},
		{"a signing program", func(dir, marker string) []string {
			git(t, dir, "config", "commit.gpgsign", "true")
			return []string{"gpg.program", "sh -c 'touch " + marker + "; exit 1' --"}
		}, "gpg.program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repoWith(t, map[string]string{"a.txt": "a\n"})
			marker := filepath.Join(t.TempDir(), "ran")
			kv := tc.config(dir, marker)
			git(t, dir, "config", kv[0], kv[1])
			head := git(t, dir, "rev-parse", "HEAD")
			files := write(t, dir, map[string]string{"a.txt": "anvil\n"})
			_, err := Commit(context.Background(), dir, files, "Anvil", Options{Env: os.Environ(), Untrusted: true})
			if !IsRefused(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "anvil trust") {
				t.Errorf("untrusted: err = %v", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the repository's program ran in an untrusted workspace")
			}
			if git(t, dir, "rev-parse", "HEAD") != head {
				t.Fatal("committed anyway")
			}
			if tc.name == "a clean filter" {
				if _, err := Commit(context.Background(), dir, files, "Anvil", Options{Env: os.Environ()}); err != nil {
					t.Fatalf("trusted: %v", err)
				}
				if _, err := os.Stat(marker); err != nil {
					t.Errorf("trusted, the filter did not run as git add runs it")
				}
			}
		})
	}
}

// An untrusted repository whose configuration names no program commits:
// git's "nothing set" (exit 1) is read as such, not as a failure.
func TestUntrustedRepositoryWithoutProgramsCommits(t *testing.T) {
	dir := repoWith(t, map[string]string{"a.txt": "a\n"})
	files := write(t, dir, map[string]string{"a.txt": "anvil\n"})
	if _, err := Commit(context.Background(), dir, files, "Anvil", Options{Env: os.Environ(), Untrusted: true}); err != nil {
		t.Fatalf("untrusted, nothing of the repository's to run: %v", err)
	}
	if got := git(t, dir, "log", "-1", "--format=%s"); strings.TrimSpace(got) != "Anvil" {
		t.Errorf("last commit %q", got)
	}
}
