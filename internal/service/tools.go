package service

import (
	"context"
	"encoding/json"

	"github.com/anvil-dev/anvil/internal/tools"
)

// Tools returns svc's tools as tools an agent's loop can call: each call
// goes to svc, in this process or the daemon's.
func Tools(ctx context.Context, svc Service) (*tools.Set, error) {
	infos, err := svc.Tools(ctx)
	if err != nil {
		return nil, err
	}
	var list []tools.Tool
	for _, info := range infos {
		list = append(list, &remoteTool{svc: svc, info: info})
	}
	return tools.NewSet(list...), nil
}

// remoteTool is one of a service's tools.
type remoteTool struct {
	svc  Service
	info ToolInfo
}

func (t *remoteTool) Name() string                 { return t.info.Name }
func (t *remoteTool) Description() string          { return t.info.Description }
func (t *remoteTool) InputSchema() json.RawMessage { return t.info.InputSchema }

// Call runs the tool; a problem the model can fix comes back as a tool
// error, like the tool's own.
func (t *remoteTool) Call(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	out, err := t.svc.Tool(ctx, t.info.Name, args, nil)
	if IsInput(err) {
		return tools.Errorf("%v", err), nil
	}
	if err != nil {
		return tools.Result{}, err
	}
	res := tools.Result{Output: out.Output, IsError: out.IsError}
	if len(out.Data) > 0 {
		res.Data = out.Data
	}
	return res, nil
}
