package shadow

import (
	"strings"
	"testing"
)

func TestValidateGo(t *testing.T) {
	h := newHarness(t, "go", harnessOptions{files: map[string]string{
		// A pre-existing error in a package no change touches.
		"util/util.go": "package util\n\nfunc Broken() int { return \"x\" }\n",
	}})
	h.requireServer("go")

	t.Run("clean edit, pre-existing error elsewhere", func(t *testing.T) {
		res := h.validate(map[string]string{"db/db.go": h.read("db/db.go") + "\n// Count returns how many users are stored.\nfunc Count() int { return len(users) }\n"})
		expect(t, res, Clean)
		if len(res.Preexisting) != 1 || res.Preexisting[0].Path != "util/util.go" {
			t.Fatalf("want util.go's error as pre-existing:\n%s", describe(res))
		}
	})

	t.Run("edit that breaks importers in other packages", func(t *testing.T) {
		res := h.validate(map[string]string{"types/types.go": strings.Replace(h.read("types/types.go"), "type User struct", "type Account struct", 1)})
		expect(t, res, Rejected, "auth/auth.go", "cmd/shop/main.go", "db/db.go")
	})

	t.Run("multi-file rename", func(t *testing.T) {
		changes := map[string]string{}
		for _, f := range []string{"types/types.go", "db/db.go", "auth/auth.go", "cmd/shop/main.go"} {
			changes[f] = wordUser.ReplaceAllString(h.read(f), "Account")
		}
		expect(t, h.validate(changes), Clean)
	})

	t.Run("deleted file still used", func(t *testing.T) {
		expect(t, h.validate(map[string]string{"-db/db.go": ""}), Rejected, "auth/auth.go", "cmd/shop/main.go")
	})

	t.Run("created file", func(t *testing.T) {
		res := h.validate(map[string]string{"db/count.go": "package db\n\n// Count returns how many users are stored.\nfunc Count() int { return len(users) }\n"})
		expect(t, res, Clean)
		res = h.validate(map[string]string{"db/count.go": "package db\n\nfunc Count() int { return len(userz) }\n"})
		expect(t, res, Rejected, "db/count.go")
	})
}

func TestValidatePython(t *testing.T) {
	h := newHarness(t, "py", harnessOptions{})
	h.requireServer("python")

	t.Run("edit that breaks importers", func(t *testing.T) {
		res := h.validate(map[string]string{"app/models.py": strings.Replace(h.read("app/models.py"), "class User:", "class Account:", 1)})
		expect(t, res, Rejected, "app/auth.py", "app/db.py", "app/main.py")
	})

	t.Run("multi-file rename", func(t *testing.T) {
		changes := map[string]string{}
		for _, f := range []string{"app/models.py", "app/db.py", "app/auth.py", "app/main.py"} {
			changes[f] = wordUser.ReplaceAllString(h.read(f), "Account")
		}
		expect(t, h.validate(changes), Clean)
	})

	t.Run("wrong type passed by a dependant", func(t *testing.T) {
		res := h.validate(map[string]string{"app/db.py": strings.NewReplacer("def find_user(user_id: str)", "def find_user(user_id: int)", "_users.get(user_id)", "_users.get(str(user_id))").Replace(h.read("app/db.py"))})
		expect(t, res, Rejected, "app/auth.py")
	})
}
