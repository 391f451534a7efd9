package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/tools"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// A staged file reads as staged, with read_file's numbering and checks.
func TestScopedReadStaged(t *testing.T) {
	root, err := workspace.New(testfs.Tree(t, map[string]string{"a.ts": "old\n", "b.ts": "other\n"}))
	if err != nil {
		t.Fatal(err)
	}
	st := NewStaging(root, nil, event.Discard{}, []string{"a.ts"})
	st.set.Put(&changeset.Change{Path: "a.ts", Content: []byte("one\ntwo\nthree\n"), Base: []byte("old\n"), BaseExists: true})
	read := &scopedRead{inner: tools.Adapt(tools.NewReadFile(root)), staging: st}
	for args, want := range map[string]string{
		`{"path":"a.ts","start_line":2,"end_line":3}`: "a.ts (staged): lines 2-3 of 3\n     2\ttwo\n     3\tthree\n",
		`{"path":"a.ts","start_line":9}`:              "start_line 9 is past the end of a.ts (staged), which has 3 lines",
		`{"path":"a.ts","start_line":3,"end_line":1}`: "end_line 1 is before start_line 3",
		`{"path":"b.ts"}`:                             "b.ts is outside the plan",
	} {
		res, err := read.Call(context.Background(), json.RawMessage(args))
		if err != nil || !strings.Contains(res.Output, want) {
			t.Errorf("%s: %q %v, want %q", args, res.Output, err, want)
		}
	}
}
