package batch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The project's batch tsc runs the project's code (its compiler, the
// plugins and type libraries it loads): in a workspace the user trusts it
// still runs sealed, with none of the environment's keys and none of the
// home's credential stores. The "tsc" here prints what it sees as a
// diagnostic, which is what a verdict would carry to the model.
func TestBatchRunsSealedAfterTrust(t *testing.T) {
	home := testfs.Tree(t, map[string]string{".ssh/id_rsa": "home-SECRET\n"})
	ws := testfs.Tree(t, map[string]string{"tsconfig.json": "{}\n", "a.ts": "export const a = 1;\n"})
	script := `echo "a.ts(1,1): error TS2322: saw [$ANVIL_TEST_SECRET] [$ANTHROPIC_API_KEY] [$(cat "$HOME/.ssh/id_rsa" 2>/dev/null)] [$(cat a.ts)]"; exit 2`
	policy := execpolicy.New(execpolicy.Options{Root: ws, Trusted: true,
		Environ: []string{"PATH=/usr/bin:/bin", "HOME=" + home, "ANVIL_TEST_SECRET=env-SECRET", "ANTHROPIC_API_KEY=sk-ant-SECRET"},
		Hidden:  []string{filepath.Join(home, ".ssh")}})
	c := New(ws, Tool{Kind: TSC, Argv: []string{"/bin/sh", "-c", script, "tsc"}, Label: "tsc"}, t.TempDir(), policy)
	res, err := c.Check(context.Background(), filepath.Join(ws, "tsconfig.json"), "disk-1", []Change{{Path: "a.ts", Content: []byte("export const a = 2;\n")}}, false)
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(res.Before, res.After)
	if strings.Contains(all, "SECRET") {
		t.Errorf("the batch checker saw a secret: %s", all)
	}
	if !strings.Contains(all, "export const a = 2;") {
		t.Errorf("the checker did not run over the change: %s", all)
	}
}

// Without a policy nothing runs.
func TestBatchWithoutPolicyRunsNothing(t *testing.T) {
	ws := testfs.Tree(t, map[string]string{"tsconfig.json": "{}\n"})
	c := New(ws, Tool{Kind: TSC, Argv: []string{"/bin/sh", "-c", "exit 0"}, Label: "tsc"}, t.TempDir(), nil)
	if _, err := c.Check(context.Background(), filepath.Join(ws, "tsconfig.json"), "disk-1", nil, false); err == nil || !strings.Contains(err.Error(), "policy") {
		t.Fatalf("err = %v", err)
	}
}

func TestMain(m *testing.M) {
	// The shadow tree's helper is this binary, re-executed.
	sandbox.Main(os.Getenv)
	os.Exit(m.Run())
}
