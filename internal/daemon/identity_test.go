package daemon

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

func fixtureDir(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "projects", name)
}

// recreate removes dir and lays out files (over a copy of fixture, if any)
// at the same path: another directory with the same name.
func recreate(t *testing.T, dir, fixture string, files map[string]string) {
	t.Helper()
	before, _ := workspace.IDOf(dir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if fixture != "" {
		copied := testfs.Copy(t, fixtureDir(fixture))
		if err := os.Rename(copied, dir); err != nil {
			t.Fatal(err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, files)
	if after, _ := workspace.IDOf(dir); after == before {
		t.Fatalf("the new directory has the old one's identity %s", after)
	}
}

// A workspace is its directory, not its path: cases that re-create the
// workspace at one path get, through the daemon, the verdicts a run with
// servers of its own gives, among them the ones a stale daemon got wrong.
func TestRecreatedWorkspace(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	c := e.dial(t)
	// One path for every case, as a CI workspace or a fresh clone has.
	dir := filepath.Join(t.TempDir(), "ws")
	type gateCase struct {
		name    string
		fixture string
		files   map[string]string // the tree, over the fixture
		change  map[string]string
	}
	models := "class User:\n    def __init__(self, name: str) -> None:\n        self.name = name\n"
	renamed := "class User:\n    def __init__(self, name: str) -> None:\n        self.full_name = name\n"
	cases := []gateCase{
		{"an attribute nobody reads", "", map[string]string{"pyrightconfig.json": `{"include": ["app"]}`, "app/__init__.py": "", "app/models.py": models, "app/main.py": "from app.models import User\n\nUser(\"a\")\n"},
			map[string]string{"app/models.py": renamed}},
		// Another directory at the same path, where an importer reads it.
		{"the same change, now read elsewhere", "", map[string]string{"pyrightconfig.json": `{"include": ["app"]}`, "app/__init__.py": "", "app/models.py": models,
			"app/report.py": "from app.models import User\n\n\ndef show(u: User) -> str:\n    return u.name\n"},
			map[string]string{"app/models.py": renamed}},
		{"deleting a file the new directory has", "", map[string]string{"pyrightconfig.json": `{"include": ["app"]}`, "app/__init__.py": "", "app/models.py": models, "app/extra.py": "x: int = 1\n"},
			map[string]string{"app/extra.py": "<delete>"}},
		{"ts: a partial rename", "ts", nil, map[string]string{"src/types.ts": "export interface Account { id: string; name: string; email: string }\nexport interface Order { id: string; userId: string; total: number }\n"}},
		{"ts: a type error", "ts", nil, map[string]string{"src/orders.ts": "export const n: number = \"x\";\n"}},
		{"go: a changed signature", "go", nil, nil},
		{"py: a type error", "py", nil, map[string]string{"app/auth.py": "x: int = \"s\"\n"}},
	}
	goDB, err := os.ReadFile(filepath.Join(fixtureDir("go"), "db", "db.go"))
	if err != nil {
		t.Fatal(err)
	}
	cases[5].change = map[string]string{"db/db.go": strings.Replace(string(goDB), "func FindUser(id string)", "func FindUser(id int)", 1)}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := func() string {
				recreate(t, dir, tc.fixture, tc.files)
				a, err := app.New(app.Options{Dir: dir, Getenv: e.getenv, SessionBase: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				ctx, cancel := untilDeadline(t)
				defer cancel()
				out, err := a.Service().Check(ctx, specs(tc.change), service.GateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return verdict(out.Result)
			}()
			// Through the daemon, on another directory at the same path.
			recreate(t, dir, tc.fixture, tc.files)
			ws, err := c.Workspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := untilDeadline(t)
			defer cancel()
			out, err := ws.Check(ctx, specs(tc.change), service.GateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := verdict(out.Result); got != want {
				t.Errorf("through the daemon: %s\nwith servers of its own: %s", got, want)
			}
		})
	}
}
