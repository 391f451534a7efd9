package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/lsp/lspfake"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The test binary is also a fake language server (lspfake).
// The test binary is the fake server, and the helper that contains the
// servers the app starts.
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	lspfake.Main(os.Getenv)
	os.Exit(m.Run())
}

// An edit whose importers are not checked at the edit (by default; or
// past the cost allowed them; or past the hook's bound) is still judged
// on its own files: refused when it breaks them, let through with a note
// saying the importers are left to the end of the turn otherwise; never
// let through unverified in silence. The server (lspfake, "slow")
// answers one file at a time, 400 ms each, so the edit's twelve
// importers take far longer than the bound; it reads closed files from
// disk ("disk").
func TestPreEditJudgesOwnFilesWhenImportersOutlastTheBound(t *testing.T) {
	getenvSlow := func(slow string) func(string) string {
		home := t.TempDir()
		testfs.Write(t, home, map[string]string{"config/anvil/config.toml": fmt.Sprintf(
			"[servers.fake]\ncommand = %q\nlanguages = [\"typescript\"]\nmode = \"pull\"\nenv = [%q]\n", os.Args[0], lspfake.Env("pull,disk,slow="+slow))})
		vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "ANVIL_STATE_DIR": filepath.Join(home, "state"), "PATH": os.Getenv("PATH")}
		return func(k string) string { return vars[k] }
	}
	for _, tc := range []struct {
		name, content string
		deny          bool
		// within is the gate's ImportersWithin; said, what the pre-edit's
		// note says of the importers. quick: the server answers in 150 ms,
		// not 400, so that an edit's own file fits the 800 ms wait, asking
		// the importers would not, and the end of the turn checks them all.
		within time.Duration
		said   string
		quick  bool
	}{
		{"breaks its own file", "export function f(x: string): number { return 0; } // ERROR\n", true, time.Hour, "", false},
		{"clean in its own file", "export function f(x: string): number { return x.length; }\n", false, time.Hour, "could not be checked within the hook's bound", false},
		// By default an edit's importers are never asked about, and the
		// edit is answered in the time of its own file's check. With an
		// allowance, the importers' expected cost (12 questions at the
		// prior cost of one) is past it: the same.
		{"by default", "export function f(x: string): number { return x.length; }\n", false, 0, "not checked at each edit", true},
		{"breaks its own file, by default", "export function f(x: string): number { return 0; } // ERROR\n", true, 0, "", true},
		{"expected to cost too much", "export function f(x: string): number { return x.length; }\n", false, 100 * time.Millisecond, "would take longer to check than the 100ms", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "tsconfig.json": `{"compilerOptions": {"strict": true}}`, "a.ts": "export function f(x: number): number { return x; }\n"}
			for i := range 12 {
				files[fmt.Sprintf("b%d.ts", i)] = fmt.Sprintf("import { f } from \"./a\";\nexport const b%d = f(%d);\n", i, i)
			}
			dir := testfs.Tree(t, files)
			getenv := getenvSlow("400ms")
			if tc.quick {
				getenv = getenvSlow("150ms")
			}
			g := &Gate{Client: Claude, Getenv: func(string) string { return "" }, Snapshots: NewStore(t.TempDir()), ImportersWithin: tc.within, Open: func(ctx context.Context, dir string) (service.Service, func(), error) {
				a, err := app.New(app.Options{Dir: dir, Getenv: getenv, SessionBase: t.TempDir()})
				if err != nil {
					return nil, nil, err
				}
				return a.Service(), func() { a.Close() }, nil
			}}
			in := Input{SessionID: "s1", Cwd: dir}
			if a := g.SessionStart(context.Background(), in); a.Message != "" {
				t.Fatalf("session start: %+v", a)
			}
			input, _ := json.Marshal(map[string]string{"file_path": filepath.Join(dir, "a.ts"), "content": tc.content})
			edit := in
			edit.ToolName, edit.ToolInput = "Write", input
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
			defer cancel()
			start := time.Now()
			a := g.PreEdit(ctx, edit)
			took := time.Since(start)
			if a.Deny != tc.deny {
				t.Fatalf("pre-edit: deny = %v, want %v: %+v", a.Deny, tc.deny, a)
			}
			if !tc.deny && !strings.Contains(a.Message, tc.said) {
				t.Errorf("pre-edit: the importers left unchecked were not said (%q): %+v", tc.said, a)
			}
			// The whole check would ask 13 files at 150 ms each, twice;
			// the own file's alone, its after and its before, about 0.3 s.
			if tc.quick && took > 2*time.Second {
				t.Errorf("pre-edit took %s: the importers were asked about", took)
			}
			// The client writes it anyway (a shell command), and the turn
			// ends: the end-of-turn check judges the changed file alone
			// when the importers outlast its bound too, and says so.
			testfs.Write(t, dir, map[string]string{"a.ts": tc.content})
			stopBound := 8 * time.Second // the 400 ms server's importers outlast it
			if tc.quick {
				stopBound = 30 * time.Second // the 150 ms server's fit it, even loaded
			}
			sctx, scancel := context.WithTimeout(context.Background(), stopBound)
			defer scancel()
			a = g.Stop(sctx, in)
			if a.Deny != tc.deny {
				t.Fatalf("stop: deny = %v, want %v: %+v", a.Deny, tc.deny, a)
			}
			// At 150 ms a question, the end of the turn checks them all.
			said := a.Message + a.Reason
			if !tc.quick && !strings.Contains(said, "could not be checked within the hook's bound") {
				t.Errorf("stop: the importers left unchecked were not said: %+v", a)
			}
			if tc.quick && strings.Contains(said, "could not be checked") {
				t.Errorf("stop: the end of the turn did not check the importers: %+v", a)
			}
		})
	}
}

// The record of a session each client keeps, where its hook input names
// none: Copilot CLI's events file under its home, OpenCode's database
// under its data home; a session id that is not one name is no record.
func TestTheClientsRecordOfASession(t *testing.T) {
	for _, tc := range []struct {
		client Client
		env    map[string]string
		in     Input
		want   string
	}{
		{Claude, map[string]string{"HOME": "/h"}, Input{SessionID: "s", TranscriptPath: "/t.jsonl"}, "/t.jsonl"},
		{Claude, map[string]string{"HOME": "/h"}, Input{SessionID: "s"}, ""},
		{Copilot, map[string]string{"HOME": "/h"}, Input{SessionID: "s"}, "/h/.copilot/session-state/s/events.jsonl"},
		{Copilot, map[string]string{"HOME": "/h", "COPILOT_HOME": "/c"}, Input{SessionID: "s"}, "/c/session-state/s/events.jsonl"},
		{Copilot, map[string]string{"HOME": "/h"}, Input{SessionID: "../s"}, ""},
		{Copilot, map[string]string{}, Input{SessionID: "s"}, ""},
		{OpenCode, map[string]string{"HOME": "/h"}, Input{SessionID: "s"}, "/h/.local/share/opencode/opencode.db"},
		{OpenCode, map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/d"}, Input{SessionID: "s"}, "/d/opencode/opencode.db"},
		{OpenCode, map[string]string{"XDG_DATA_HOME": "rel"}, Input{SessionID: "s"}, ""},
		{OpenCode, map[string]string{"HOME": "/h", "OPENCODE_DB": "/db/o.db"}, Input{SessionID: "s"}, "/db/o.db"},
		{OpenCode, map[string]string{"HOME": "/h", "OPENCODE_DB": "mine.db"}, Input{SessionID: "s"}, "/h/.local/share/opencode/mine.db"},
		{OpenCode, map[string]string{"HOME": "/h", "OPENCODE_DB": ":memory:"}, Input{SessionID: "s"}, ""},
	} {
		g := &Gate{Client: tc.client, Getenv: func(k string) string { return tc.env[k] }}
		if got := g.transcript(tc.in); got != tc.want {
			t.Errorf("%s %v %+v: record %q, want %q", tc.client, tc.env, tc.in, got, tc.want)
		}
	}
}
