package gatefuzz_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/gatefuzz"
	"github.com/anvil-dev/anvil/internal/servers"
)

var (
	campaignLang   = flag.String("fuzz.lang", "", "TestGateFuzzCampaign: the language (ts, py, go; all when empty)")
	campaignTrials = flag.Int("fuzz.trials", 0, "TestGateFuzzCampaign: trials per language (the campaign runs only when set)")
	campaignSeed   = flag.Uint64("fuzz.seed", 1, "TestGateFuzzCampaign: the campaign's seed")
	campaignOut    = flag.String("fuzz.out", "", "TestGateFuzzCampaign: a file the counts are written to, one table row per language")
	campaignCases  = flag.String("fuzz.cases", "", "TestGateFuzzCampaign: where minimised disagreements are written (testdata/cases when empty)")
)

// testEnv is the environment with Anvil's state in a directory of the
// test's.
func testEnv(t *testing.T) func(string) string {
	state := t.TempDir()
	return func(k string) string {
		if k == "ANVIL_STATE_DIR" {
			return state
		}
		return os.Getenv(k)
	}
}

// inProcess opens the gate as `anvil check --no-daemon` does: the App's
// Service in this process.
func inProcess(t *testing.T) gatefuzz.OpenGate {
	getenv := testEnv(t)
	sessions := t.TempDir()
	return func(ctx context.Context, dir string) (gatefuzz.Gate, error) {
		a, err := app.New(app.Options{Dir: dir, Getenv: getenv, SessionBase: sessions})
		if err != nil {
			return nil, err
		}
		return &gatefuzz.ServiceGate{Service: a.Service(), Stop: func() { a.Close() }}, nil
	}
}

// languages are the fuzzer's languages with their checkers from Anvil's
// tools directory.
func languages(t *testing.T) map[string]gatefuzz.Language {
	bin := filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin")
	for _, tool := range []string{"tsc", "pyright"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			t.Fatalf("no %s in Anvil's tools directory: run scripts/install-servers.sh (%v)", tool, err)
		}
	}
	return map[string]gatefuzz.Language{
		"ts": gatefuzz.TS{Tsc: []string{filepath.Join(bin, "tsc")}},
		"go": gatefuzz.Go{},
		"py": gatefuzz.Python{Pyright: []string{filepath.Join(bin, "pyright")}},
	}
}
