package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/tools"
)

// stagedRename is rename_symbol for the Executor: the workspace's tool
// (in this process or the daemon's) computes the rename over the staged
// change set, and the edits it returns are staged here.
type stagedRename struct {
	svc     service.Service
	staging *Staging
	info    *service.ToolInfo
}

func (t *stagedRename) tool(ctx context.Context) (*service.ToolInfo, error) {
	if t.info != nil {
		return t.info, nil
	}
	infos, err := t.svc.Tools(ctx)
	if err != nil {
		return nil, err
	}
	for i := range infos {
		if infos[i].Name == "rename_symbol" {
			t.info = &infos[i]
			return t.info, nil
		}
	}
	return nil, fmt.Errorf("the workspace has no rename_symbol")
}

func (t *stagedRename) Name() string { return "rename_symbol" }

func (t *stagedRename) Description() string {
	info, err := t.tool(context.Background())
	if err != nil {
		return "Rename a symbol with the language server and stage the edits."
	}
	return info.Description
}

func (t *stagedRename) InputSchema() json.RawMessage {
	info, err := t.tool(context.Background())
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return info.InputSchema
}

func (t *stagedRename) Call(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	out, err := t.svc.Tool(ctx, "rename_symbol", args, Specs(t.staging.Set()))
	if service.IsInput(err) {
		return tools.Errorf("%v", err), nil
	}
	if err != nil {
		return tools.Result{}, err
	}
	if out.IsError {
		return tools.Result{Output: out.Output, IsError: true}, nil
	}
	var data tools.RenameData
	if err := json.Unmarshal(out.Data, &data); err != nil || len(data.Changes) == 0 {
		return tools.Errorf("rename_symbol returned no change set: %v", err), nil
	}
	state, err := t.staging.Stage(ctx, data.Changes)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	data.Staged = true
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(strings.SplitN(out.Output, "(not staged", 2)[0], "\n"))
	b.WriteString("\n" + state)
	return tools.Result{Output: b.String(), Data: data}, nil
}
