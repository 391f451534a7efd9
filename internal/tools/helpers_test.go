package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// newRoot builds a workspace from files (see testfs.Write).
func newRoot(t *testing.T, files map[string]string) *workspace.Root {
	t.Helper()
	root, err := workspace.New(testfs.Tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// call runs tool with JSON args, failing the test on a Go error.
func call(t *testing.T, tool Tool, args string) Result {
	t.Helper()
	res, err := tool.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): unexpected Go error: %v", tool.Name(), args, err)
	}
	return res
}
