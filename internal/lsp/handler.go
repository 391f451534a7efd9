package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// handler answers what the server sends: notifications are recorded, and
// server-to-client requests get the answers a headless client can give. It
// runs on the connection's read loop, in order, and must not block.
type handler struct{ c *Client }

func (h handler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	c := h.c
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		switch req.Method {
		case "textDocument/publishDiagnostics":
			var p PublishDiagnosticsParams
			if json.Unmarshal(params, &p) == nil {
				c.recordPublish(p)
			}
		case "$/progress":
			var p ProgressParams
			if json.Unmarshal(params, &p) == nil {
				c.recordProgress(p)
			}
		}
		return // logMessage, showMessage, telemetry: nothing to do headless
	}

	var result any
	switch req.Method {
	case "workspace/configuration":
		result = c.configuration(params)
	case "client/registerCapability":
		var p struct {
			Registrations []Registration `json:"registrations"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.mu.Lock()
			for _, r := range p.Registrations {
				c.state.registrations[r.Method] = r
			}
			c.mu.Unlock()
			c.broadcast()
		}
	case "client/unregisterCapability":
		var p struct {
			Unregisterations []Registration `json:"unregisterations"` // sic, per the specification
		}
		if json.Unmarshal(params, &p) == nil {
			c.mu.Lock()
			for _, r := range p.Unregisterations {
				delete(c.state.registrations, r.Method)
			}
			c.mu.Unlock()
		}
	case "workspace/diagnostic/refresh", "window/workDoneProgress/create", "window/showMessageRequest":
		// null: accepted, nothing chosen
	case "workspace/workspaceFolders":
		result = c.workspaceFolders()
	case "workspace/applyEdit":
		// Servers never write: every edit goes through the shadow workspace.
		result = map[string]any{"applied": false, "failureReason": "Anvil applies edits itself, after validation"}
	case "window/showDocument":
		result = map[string]any{"success": false}
	default:
		c.reply(func(ctx context.Context) error {
			return conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Anvil does not handle " + req.Method})
		})
		return
	}
	c.reply(func(ctx context.Context) error { return conn.Reply(ctx, req.ID, result) })
}

// replyTimeout bounds a reply to a server's request. Replies are written on
// the connection's read loop: a server that stopped reading must not stop
// Anvil from reading what it sends, so past this bound it is killed.
const replyTimeout = 5 * time.Second

func (c *Client) reply(write func(ctx context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), replyTimeout)
	defer cancel()
	_ = c.send(ctx, func() error { return write(ctx) })
}

// configuration answers workspace/configuration: one value per requested
// section, looked up in the settings by dotted path; null where absent.
func (c *Client) configuration(params json.RawMessage) []any {
	var p struct {
		Items []struct {
			Section string `json:"section"`
		} `json:"items"`
	}
	_ = json.Unmarshal(params, &p)
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		out[i] = lookupSection(c.cfg.Settings, it.Section)
	}
	return out
}

func lookupSection(settings map[string]any, section string) any {
	if section == "" {
		return settings
	}
	if v, ok := settings[section]; ok { // a flat "python.analysis" key
		return v
	}
	var cur any = settings
	for _, part := range strings.Split(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}
