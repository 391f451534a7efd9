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

// hookLog is a hook that appends its name to .git/hooks.log, so that the
// hooks git runs and the hooks Anvil runs can be compared.
const hookLog = "#!/bin/sh\necho \"$(basename \"$0\")\" >> \"$(git rev-parse --git-dir)/hooks.log\"\n"

func hook(t *testing.T, dir, name, body string) {
	t.Helper()
	path := filepath.Join(dir, ".git", "hooks", name)
	if err := os.WriteFile(path, []byte(hookLog+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeGPG is a gpg.program that signs as gpg does for git: the status
// line git looks for on stderr, an armored signature on stdout.
const fakeGPG = "#!/bin/sh\ncat >/dev/null\nprintf '\\n[GNUPG:] SIG_CREATED D 1 8 00 1 FAKE\\n' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n'\n"

// Git is the oracle: for each shape, the same change is made by Anvil in
// the repository and by `git add <files> && git commit` in a copy of it
// (cp -a, before the change). Where git commits, Anvil's commit (tree,
// message, signature), the resulting index, the hooks run and git status
// are git's; where git refuses, Anvil refuses with the reason and leaves
// HEAD and the index as they were.
func TestCommitIsWhatGitAddAndCommitMake(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string // the initial commit
		config [][2]string       // set before the initial commit
		setup  func(t *testing.T, dir string)
		change map[string]string // "" deletes
		refuse string            // git refuses: Anvil's reason says this
	}{
		{
			name:   "an LFS-style clean filter",
			files:  map[string]string{".gitattributes": "*.secret filter=fake\n", "key.secret": "hunter2\n", "a.txt": "a\n"},
			config: [][2]string{{"filter.fake.clean", `{ printf 'version fake-lfs\noid sha256:'; sha256sum | cut -d" " -f1; }`}, {"filter.fake.smudge", "cat"}, {"filter.fake.required", "true"}},
			change: map[string]string{"key.secret": "hunter3\n", "new.secret": "s3cret\n", "a.txt": "b\n"},
		},
		{
			name:   "core.autocrlf with CRLF files",
			files:  map[string]string{"a.txt": "one\r\ntwo\r\nthree\r\n", "b.txt": "b\r\n"},
			config: [][2]string{{"core.autocrlf", "true"}},
			change: map[string]string{"a.txt": "one\r\nTWO\r\nthree\r\n", "new.txt": "new\r\n"},
		},
		{
			name:   "a text attribute with eol=crlf",
			files:  map[string]string{".gitattributes": "*.bat text eol=crlf\n", "run.bat": "echo a\r\n"},
			change: map[string]string{"run.bat": "echo a\r\necho b\r\n"},
		},
		{
			name:   "a new file in an ignored directory",
			files:  map[string]string{".gitignore": "secrets/\n", "a.txt": "a\n"},
			change: map[string]string{"secrets/.env": "TOKEN=1\n", "a.txt": "b\n"},
			refuse: "ignored by .gitignore",
		},
		{
			name:  "a pre-commit hook that refuses",
			files: map[string]string{"a.txt": "a\n"},
			setup: func(t *testing.T, dir string) {
				hook(t, dir, "pre-commit", "if git diff --cached | grep -q TODO; then echo 'no TODO in commits' >&2; exit 1; fi\n")
			},
			change: map[string]string{"a.txt": "a TODO\n"},
			refuse: "no TODO in commits",
		},
		{
			name:  "hooks that see the change staged and edit the message",
			files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"},
			setup: func(t *testing.T, dir string) {
				hook(t, dir, "pre-commit", "git diff --cached --name-only >> \"$(git rev-parse --git-dir)/hooks.log\"\n")
				hook(t, dir, "prepare-commit-msg", "echo \"prepare $2\" >> \"$(git rev-parse --git-dir)/hooks.log\"\n")
				hook(t, dir, "commit-msg", "echo 'Signed-off-by: Hook <hook@example.com>' >> \"$1\"\n")
				hook(t, dir, "post-commit", "")
			},
			change: map[string]string{"a.txt": "A\n", "b.txt": ""},
		},
		{
			name:  "hooks in core.hooksPath, as husky sets it",
			files: map[string]string{"a.txt": "a\n"},
			setup: func(t *testing.T, dir string) {
				if err := os.MkdirAll(filepath.Join(dir, ".githooks"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".githooks", "commit-msg"), []byte(hookLog+"echo 'Reviewed-by: Husky' >> \"$1\"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				git(t, dir, "config", "core.hooksPath", ".githooks")
			},
			change: map[string]string{"a.txt": "b\n"},
		},
		{
			name:  "commit.gpgsign",
			files: map[string]string{"a.txt": "a\n"},
			setup: func(t *testing.T, dir string) {
				gpg := filepath.Join(t.TempDir(), "fake-gpg")
				if err := os.WriteFile(gpg, []byte(fakeGPG), 0o755); err != nil {
					t.Fatal(err)
				}
				git(t, dir, "config", "gpg.program", gpg)
				git(t, dir, "config", "commit.gpgsign", "true")
			},
			change: map[string]string{"a.txt": "b\n"},
		},
		{
			name:  "commit.gpgsign without a key that signs",
			files: map[string]string{"a.txt": "a\n"},
			setup: func(t *testing.T, dir string) {
				git(t, dir, "config", "gpg.program", "false")
				git(t, dir, "config", "commit.gpgsign", "true")
			},
			change: map[string]string{"a.txt": "b\n"},
			refuse: "commit.gpgsign is set, and git could not sign the commit",
		},
		{
			name:  "a held index.lock",
			files: map[string]string{"a.txt": "a\n"},
			setup: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, ".git", "index.lock"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			change: map[string]string{"a.txt": "b\n"},
			refuse: "index.lock",
		},
		{
			name:  "a file in a submodule",
			files: map[string]string{"a.txt": "a\n", "sub/s.txt": "s\n"},
			setup: func(t *testing.T, dir string) {
				sub := filepath.Join(dir, "sub")
				for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Test"}, {"config", "user.email", "test@example.com"}, {"add", "-A"}, {"commit", "-q", "-m", "sub"}} {
					git(t, sub, args...)
				}
				git(t, dir, "rm", "-q", "--cached", "sub/s.txt")
				git(t, dir, "add", "sub")
				git(t, dir, "commit", "-q", "-m", "submodule")
			},
			change: map[string]string{"sub/s.txt": "anvil\n"},
			refuse: "in the submodule sub",
		},
		{
			name:  "a file outside the sparse-checkout cone",
			files: map[string]string{"in/a.txt": "a\n", "out/b.txt": "b\n"},
			setup: func(t *testing.T, dir string) {
				git(t, dir, "sparse-checkout", "set", "--cone", "in")
			},
			change: map[string]string{"out/b.txt": "anvil\n"},
			refuse: "outside your sparse-checkout",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, tc.files)
			git(t, dir, "init", "-q", "-b", "main")
			git(t, dir, "config", "user.name", "Test")
			git(t, dir, "config", "user.email", "test@example.com")
			for _, kv := range tc.config {
				git(t, dir, "config", kv[0], kv[1])
			}
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-q", "-m", "initial")
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			oracle := filepath.Join(t.TempDir(), "copy")
			if out, err := exec.Command("cp", "-a", dir, oracle).CombinedOutput(); err != nil {
				t.Fatalf("cp -a: %v: %s", err, out)
			}
			headBefore, indexBefore := git(t, dir, "rev-parse", "HEAD"), git(t, dir, "ls-files", "-s")

			const message = "Anvil: the change"
			files := write(t, dir, tc.change)
			res, err := Commit(context.Background(), dir, files, message, Options{Env: os.Environ()})

			write(t, oracle, tc.change)
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
			}
			gitOut, gitErr := run(oracle, append([]string{"add", "--"}, paths...)...)
			if gitErr == nil {
				gitOut, gitErr = run(oracle, "commit", "-q", "-m", message)
			}

			if tc.refuse != "" {
				if gitErr == nil {
					t.Fatal("the oracle is wrong: git commits")
				}
				if !IsRefused(err) || !strings.Contains(err.Error(), tc.refuse) {
					t.Fatalf("git refuses (%s); Anvil: res %+v, err %v, want a refusal saying %q", strings.TrimSpace(gitOut), res, err, tc.refuse)
				}
				t.Logf("Anvil: %v", err)
				if git(t, dir, "rev-parse", "HEAD") != headBefore {
					t.Error("HEAD moved")
				}
				if got := git(t, dir, "ls-files", "-s"); got != indexBefore {
					t.Errorf("the index changed:\n%s\nwas:\n%s", got, indexBefore)
				}
				return
			}
			if gitErr != nil {
				t.Fatalf("the oracle is wrong: git refuses: %s", gitOut)
			}
			if err != nil {
				t.Fatalf("git commits; Anvil: %v", err)
			}
			for _, q := range [][]string{
				{"rev-parse", "HEAD^{tree}"},
				{"log", "-1", "--format=%B"},
				{"ls-files", "-s"},
				{"status", "--porcelain"},
				{"ls-tree", "-r", "HEAD"},
			} {
				if want, got := git(t, oracle, q...), git(t, dir, q...); got != want {
					t.Errorf("git %s:\nAnvil:\n%s\ngit:\n%s", strings.Join(q, " "), got, want)
				}
			}
			if want, got := signed(t, oracle), signed(t, dir); got != want {
				t.Errorf("signed: Anvil %v, git %v", got, want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".git", "*index*")); len(left) != 1 {
				t.Errorf("the lock or a prepared index is left: %v", left)
			}
			want, _ := os.ReadFile(filepath.Join(oracle, ".git", "hooks.log"))
			got, _ := os.ReadFile(filepath.Join(dir, ".git", "hooks.log"))
			if string(got) != string(want) {
				t.Errorf("hooks run:\nAnvil:\n%s\ngit:\n%s", got, want)
			}
		})
	}
}

func run(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func signed(t *testing.T, dir string) bool {
	return strings.Contains(git(t, dir, "cat-file", "commit", "HEAD"), "\ngpgsig -----BEGIN PGP SIGNATURE-----")
}

// An undo whose revert git refuses (here a held index.lock) says that the
// commit stays in the branch's history, and changes neither HEAD nor the
// index.
func TestRefusedRevertSaysTheCommitStays(t *testing.T) {
	dir := repoWith(t, map[string]string{"a.txt": "a\n"})
	files := write(t, dir, map[string]string{"a.txt": "b\n"})
	res, err := Commit(context.Background(), dir, files, "Anvil: b", Options{Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{"a.txt": "a\n"}) // the journal restores the file
	if err := os.WriteFile(filepath.Join(dir, ".git", "index.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	head, index := git(t, dir, "rev-parse", "HEAD"), git(t, dir, "ls-files", "-s")
	_, err = Revert(context.Background(), dir, res, files, "Revert \"Anvil: b\"", Options{Env: os.Environ()})
	if !IsRefused(err) || !strings.Contains(err.Error(), "index.lock") || !strings.Contains(err.Error(), "the commit "+res.Commit[:12]+" stays in the history of main") {
		t.Fatalf("err = %v", err)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "ls-files", "-s") != index {
		t.Fatal("HEAD or the index changed")
	}
}

// Undo's revert runs the hooks git revert runs (prepare-commit-msg and
// post-commit; neither pre-commit nor commit-msg, so a pre-commit hook
// that refuses does not keep the revert out), and makes git's tree and
// index.
func TestRevertIsWhatGitRevertMakes(t *testing.T) {
	dir := repoWith(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	refuse := "if [ -e \"$(git rev-parse --git-dir)/refuse\" ]; then echo refused >&2; exit 1; fi\n"
	hook(t, dir, "pre-commit", refuse)
	hook(t, dir, "prepare-commit-msg", "")
	hook(t, dir, "commit-msg", refuse)
	hook(t, dir, "post-commit", "")
	files := write(t, dir, map[string]string{"a.txt": "A\n", "b.txt": "", "c.txt": "c\n"})
	res, err := Commit(context.Background(), dir, files, "Anvil: the change", Options{Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files { // the journal restores the files
		if f.BaseExists {
			testfs.Write(t, dir, map[string]string{f.Path: string(f.Base)})
		} else {
			os.Remove(filepath.Join(dir, f.Path))
		}
	}
	os.Remove(filepath.Join(dir, ".git", "hooks.log"))
	if err := os.WriteFile(filepath.Join(dir, ".git", "refuse"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	oracle := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", dir, oracle).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v: %s", err, out)
	}
	git(t, oracle, "reset", "-q", "--hard") // git revert wants a clean tree
	git(t, oracle, "clean", "-fq")
	git(t, oracle, "revert", "--no-edit", "HEAD")

	if _, err := Revert(context.Background(), dir, res, files, "Revert \"Anvil: the change\"", Options{Env: os.Environ()}); err != nil {
		t.Fatal(err)
	}
	for _, q := range [][]string{{"rev-parse", "HEAD^{tree}"}, {"ls-files", "-s"}, {"status", "--porcelain"}} {
		if want, got := git(t, oracle, q...), git(t, dir, q...); got != want {
			t.Errorf("git %s:\nAnvil:\n%s\ngit:\n%s", strings.Join(q, " "), got, want)
		}
	}
	want, _ := os.ReadFile(filepath.Join(oracle, ".git", "hooks.log"))
	got, _ := os.ReadFile(filepath.Join(dir, ".git", "hooks.log"))
	if string(got) != string(want) {
		t.Errorf("hooks run:\nAnvil:\n%s\ngit:\n%s", got, want)
	}
}
