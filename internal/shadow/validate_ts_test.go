package shadow

import (
	"regexp"
	"strings"
	"testing"
)

// dbWithSizeBug is db.ts with a pre-existing error: .size on an array.
const dbWithSizeBug = `import { Order, User } from "./types";

const users = new Map<string, User>();
const orders: Order[] = [];

export function saveUser(user: User): void {
  users.set(user.id, user);
}

export function findUser(id: string): User | undefined {
  return users.get(id);
}

export function allUsers(): User[] {
  return [...users.values()];
}

export function userCount(): number {
  return allUsers().size;
}

export function ordersFor(userId: string): Order[] {
  return orders.filter((o) => o.userId === userId);
}
`

func TestValidateTypeScript(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{files: map[string]string{"src/db.ts": dbWithSizeBug}})
	h.requireServer("typescript")

	t.Run("clean edit beside a pre-existing error", func(t *testing.T) {
		edited := strings.Replace(dbWithSizeBug, "export function ordersFor", "export function hasUser(id: string): boolean {\n  return users.has(id);\n}\n\nexport function ordersFor", 1)
		res := h.validate(map[string]string{"src/db.ts": edited})
		expect(t, res, Clean)
		if len(res.Preexisting) != 1 || !strings.Contains(res.Preexisting[0].Message, "size") || res.Preexisting[0].Line != 19 {
			t.Fatalf("want the .size error reported as pre-existing at line 19:\n%s", describe(res))
		}
	})

	t.Run("edit that breaks only an importer", func(t *testing.T) {
		edited := strings.Replace(dbWithSizeBug, "export function findUser(id: string): User | undefined {\n  return users.get(id);",
			"export function findUser(id: string): string | undefined {\n  return users.get(id)?.name;", 1)
		res := h.validate(map[string]string{"src/db.ts": edited})
		expect(t, res, Rejected, "src/auth.ts")
		d := res.New[0]
		if d.Line != 9 || d.Code != "2322" || !strings.Contains(d.LineText, "return user;") {
			t.Fatalf("want TS2322 at auth.ts:9 on 'return user;', got %+v", d)
		}
	})

	t.Run("edit that breaks only a transitive dependant", func(t *testing.T) {
		// A new required field: db.ts and auth.ts (direct importers of
		// types.ts) still compile; main.ts builds a User literal through
		// saveUser without importing types.ts, and breaks.
		res := h.validate(map[string]string{"src/types.ts": strings.Replace(h.read("src/types.ts"), "  email: string;\n}", "  email: string;\n  age: number;\n}", 1)})
		expect(t, res, Rejected, "src/main.ts")
	})

	t.Run("the same error a second time beside the pre-existing one", func(t *testing.T) {
		edited := strings.Replace(dbWithSizeBug, "export function ordersFor", "export function userCount2(): number {\n  return allUsers().size;\n}\n\nexport function ordersFor", 1)
		res := h.validate(map[string]string{"src/db.ts": edited})
		expect(t, res, Rejected, "src/db.ts")
		// Which of two identical lines is the new one is a matter of how
		// the diff aligns them; that there is exactly one new is not.
		if len(res.New) != 1 || len(res.Preexisting) != 1 {
			t.Fatalf("want one new and one pre-existing:\n%s", describe(res))
		}
	})

	t.Run("syntax error", func(t *testing.T) {
		res := h.validate(map[string]string{"src/orders.ts": strings.Replace(h.read("src/orders.ts"), "return ", "return (", 1)})
		expect(t, res, Rejected, "src/orders.ts")
	})

	t.Run("multi-file rename", func(t *testing.T) {
		rename := func(rel string) string { return wordUser.ReplaceAllString(h.read(rel), "Account") }
		res := h.validate(map[string]string{
			"src/types.ts": rename("src/types.ts"),
			"src/db.ts":    rename("src/db.ts"),
			"src/auth.ts":  rename("src/auth.ts"),
		})
		expect(t, res, Clean)
		// The pre-existing error is reworded by the rename ("Account[]")
		// and must still count as pre-existing.
		if len(res.Preexisting) != 1 || !strings.Contains(res.Preexisting[0].Message, "Account[]") {
			t.Fatalf("want the reworded .size error as pre-existing:\n%s", describe(res))
		}
	})

	t.Run("partial rename breaks importers", func(t *testing.T) {
		res := h.validate(map[string]string{"src/types.ts": wordUser.ReplaceAllString(h.read("src/types.ts"), "Account")})
		expect(t, res, Rejected, "src/auth.ts", "src/db.ts")
		// db.ts and auth.ts import types.ts and already break, so the files
		// that only import them need not be checked to reject the change.
		// Of those, orders.ts uses only ordersFor from db.ts, whose
		// interface (Order) did not change: the change cannot reach it.
		notes := strings.Join(res.Notes, "\n")
		if contains(res.CheckedFiles, "src/main.ts") || len(res.Notes) != 3 || !strings.Contains(notes, "compared by TypeScript's declaration emit") ||
			!strings.Contains(notes, "so 1 further dependant was not checked") ||
			!strings.Contains(notes, "1 importer of the change not checked: the exports they use kept their interfaces") {
			t.Errorf("transitive dependants after direct ones broke: checked %v, notes %v", res.CheckedFiles, res.Notes)
		}
	})

	t.Run("created file", func(t *testing.T) {
		res := h.validate(map[string]string{
			"src/format.ts": "import { User } from \"./types\";\n\nexport function initials(u: User): string {\n  return u.name.slice(0, 1);\n}\n",
			"src/main.ts":   h.read("src/main.ts") + "import { initials } from \"./format\";\nconsole.log(initials(user));\n",
		})
		expect(t, res, Clean)
		if !contains(res.CheckedFiles, "src/format.ts") {
			t.Errorf("created file not checked: %v", res.CheckedFiles)
		}
	})

	t.Run("created file with an error", func(t *testing.T) {
		res := h.validate(map[string]string{"src/format.ts": "export const n: number = \"one\";\n"})
		expect(t, res, Rejected, "src/format.ts")
	})

	t.Run("created file in a project where no module could carry it", func(t *testing.T) {
		// TypeScript 7's server puts a created file in the project
		// whose include takes it, with no carrier (tsserver's needs one:
		// servers.Server.Unplaceable): pkg's noImplicitReturns applies,
		// though pkg's one other file is a script.
		hp := newHarness(t, "ts", harnessOptions{files: map[string]string{
			"pkg/tsconfig.json": `{"compilerOptions": {"target": "es2022", "module": "preserve", "moduleResolution": "bundler", "noImplicitReturns": true, "noEmit": true}, "include": ["*.ts"]}` + "\n",
			"pkg/script.ts":     "const greeting = \"hi\";\n",
		}})
		if name := hp.requireServer("typescript").Spec().Name; name != "tsgo" {
			t.Fatalf("checked by %s, want TypeScript 7's server", name)
		}
		res := hp.validate(map[string]string{"pkg/sign.ts": "export function sign(n: number) {\n  if (n > 0) return 1;\n}\n"})
		expect(t, res, Rejected, "pkg/sign.ts")
		if res.New[0].Code != "7030" {
			t.Errorf("want TS7030 (not all code paths return), got %v", res.New)
		}
	})

	t.Run("deleted file still imported", func(t *testing.T) {
		// tsgo cannot be trusted with a deletion's importers (see
		// servers.Defaults): the batch checker answers, and without one
		// the change is unverified, never clean.
		res := h.validate(map[string]string{"-src/orders.ts": ""})
		expect(t, res, Unverified)
		hb := newHarness(t, "ts", harnessOptions{files: map[string]string{"src/db.ts": dbWithSizeBug}, opts: Options{BatchStateDir: t.TempDir()}})
		res = hb.validate(map[string]string{"-src/orders.ts": ""})
		expect(t, res, Rejected, "src/main.ts")
	})

	t.Run("not code is reported, not checked", func(t *testing.T) {
		res := h.validate(map[string]string{"NOTES.md": "# notes\n"})
		expect(t, res, Clean)
		if len(res.NotCode) != 1 || res.NotCode[0].Path != "NOTES.md" {
			t.Fatalf("want NOTES.md listed as not code: %+v", res.NotCode)
		}
	})
}

var wordUser = regexp.MustCompile(`\bUser\b`)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
