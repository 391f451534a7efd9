package textdiff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Each diff must apply with patch(1) and give the new text: a check that
// catches wrong hunk numbers, which a golden string might repeat.
func TestUnifiedApplies(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Fatal("patch(1) is not installed (scripts/install-deps.sh installs it)")
	}
	auth := "import { findUser } from \"./db\";\nimport { User } from \"./types\";\n\nexport function login(id: string): User {\n  const user = findUser(id);\n  if (!user) {\n    throw new Error(`no user ${id}`);\n  }\n  return user;\n}\n\nexport function displayName(user: User): string {\n  return `${user.name} <${user.email}>`;\n}\n"
	tests := map[string][2]string{
		"two hunks joined then a third": {auth, strings.ReplaceAll(auth, "User", "Account")},
		"append":                        {"a\nb\n", "a\nb\nc\n"},
		"prepend":                       {"a\nb\n", "z\na\nb\n"},
		"delete all":                    {"a\nb\n", ""},
		"create":                        {"", "x\ny\n"},
		"no final newline":              {"a\nb", "a\nc"},
		"far apart": {strings.Repeat("l\n", 5) + "X\n" + strings.Repeat("m\n", 20) + "Y\n" + strings.Repeat("n\n", 5),
			strings.Repeat("l\n", 5) + "X2\n" + strings.Repeat("m\n", 20) + "Y2\nnew\n" + strings.Repeat("n\n", 5)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "f.txt")
			os.WriteFile(file, []byte(tc[0]), 0o644)
			d := Unified("a/f.txt", "b/f.txt", tc[0], tc[1])
			cmd := exec.Command(patch, "-s", "-p1", "--no-backup-if-mismatch", "-d", dir)
			cmd.Stdin = strings.NewReader(d)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch: %v %s\n%s", err, out, d)
			}
			got, _ := os.ReadFile(file)
			if string(got) != tc[1] {
				t.Fatalf("patched:\n%q\nwant\n%q\ndiff:\n%s", got, tc[1], d)
			}
		})
	}
	if Unified("a", "b", "same\n", "same\n") != "" {
		t.Error("equal texts gave a diff")
	}
}

func TestUnifiedHunkNumbers(t *testing.T) {
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"
	new := strings.Replace(strings.Replace(old, "2\n", "two\nTWO\n", 1), "15\n", "fifteen\n", 1)
	want := "--- a\n+++ b\n@@ -1,5 +1,6 @@\n 1\n-2\n+two\n+TWO\n 3\n 4\n 5\n@@ -12,5 +13,5 @@\n 12\n 13\n 14\n-15\n+fifteen\n 16\n"
	if got := Unified("a", "b", old, new); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
