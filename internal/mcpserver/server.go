// Package mcpserver offers a workspace's gate and tools to other agents
// over the Model Context Protocol: the read-only tools Anvil's own agents
// use, rename_symbol (which computes a change set and writes nothing), and
// check_changes, apply_changes and undo, so an agent can validate a change
// set, with its dependants, before anything is written.
//
// The server is a thin front: every call goes to a [service.Service] (the
// daemon's, normally), which owns the servers and the journal.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/tools"
)

// Server is the MCP server of one workspace. It counts the calls it has
// read and not yet answered, so that a stop lets them be answered first.
type Server struct {
	*mcp.Server
	calls unanswered
}

// Run serves one session on t until the client ends it or ctx ends.
// Cancel ctx only after [Server.Drain]: ending the session refuses to
// write the answers still due.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.Server.Run(ctx, &countingTransport{Transport: t, calls: &s.calls})
}

// Drain waits, up to d, until every call read so far has been answered
// (its answer written to the client), and reports whether they were.
func (s *Server) Drain(d time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return s.calls.wait(ctx)
}

// withProgress relays the gate's progress to a client that asked for it:
// handler gets the call's progress sink (nil when there is none).
func withProgress(handler func(ctx context.Context, req *mcp.CallToolRequest, say func(service.Progress)) (*mcp.CallToolResult, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		say, stop := relayProgress(ctx, req)
		defer stop()
		return handler(ctx, req, say)
	}
}

// New returns an MCP server for svc's workspace. version is Anvil's, for
// the handshake.
func New(ctx context.Context, svc service.Service, version string) (*Server, error) {
	srv := &Server{}
	s := mcp.NewServer(&mcp.Implementation{Name: "anvil", Title: "Anvil: validate changes before writing them", Version: version}, &mcp.ServerOptions{
		Instructions: "Before writing edits, send them to check_changes: Anvil shows the change to the project's real language servers " +
			"and reports only the errors it introduces, in the changed files and in every file that depends on them. " +
			"apply_changes validates and writes atomically when clean; undo reverts the last commit.",
	})
	infos, err := svc.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the workspace's tools: %w", err)
	}
	for _, info := range infos {
		s.AddTool(&mcp.Tool{Name: info.Name, Description: info.Description, InputSchema: info.InputSchema, Annotations: readOnly()},
			withProgress(func(ctx context.Context, req *mcp.CallToolRequest, _ func(service.Progress)) (*mcp.CallToolResult, error) {
				out, err := svc.Tool(ctx, info.Name, req.Params.Arguments, nil)
				if service.IsInput(err) {
					return errorResult(err.Error()), nil
				}
				if err != nil {
					return nil, err
				}
				return result(out.Output, out.Data, out.IsError), nil
			}))
	}
	// Each gate tool is made for its call, with the call's progress sink.
	gate := []struct {
		tool        func(say func(service.Progress)) tools.Tool
		annotations *mcp.ToolAnnotations
	}{
		{func(say func(service.Progress)) tools.Tool { return tools.Adapt(&checkChanges{svc: svc, say: say}) }, readOnly()},
		// It runs the project's build and tests (in a shadow tree): not
		// read-only, though it writes nothing of the user's.
		{func(say func(service.Progress)) tools.Tool {
			return tools.Adapt(&checkChanges{svc: svc, say: say, run: true})
		},
			&mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		// Clients approve a tool without asking by these hints: apply_changes
		// overwrites and deletes the user's files. Sent again, it finds the
		// files with that content and writes nothing: idempotent.
		{func(say func(service.Progress)) tools.Tool { return tools.Adapt(&applyChanges{svc: svc, say: say}) },
			&mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		// Each call undoes one more commit: not idempotent.
		{func(say func(service.Progress)) tools.Tool { return tools.Adapt(&undo{svc: svc, say: say}) },
			&mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(false)}},
	}
	for _, g := range gate {
		t := g.tool(nil)
		s.AddTool(&mcp.Tool{Name: t.Name(), Description: t.Description(), InputSchema: t.InputSchema(), Annotations: g.annotations},
			withProgress(func(ctx context.Context, req *mcp.CallToolRequest, say func(service.Progress)) (*mcp.CallToolResult, error) {
				res, err := g.tool(say).Call(ctx, req.Params.Arguments)
				if service.IsInput(err) || outcomeUnknown(err) {
					return errorResult(err.Error()), nil
				}
				if err != nil {
					return nil, err
				}
				var data json.RawMessage
				if res.Data != nil {
					if data, err = json.Marshal(res.Data); err != nil {
						return nil, err
					}
				}
				return result(res.Output, data, res.IsError), nil
			}))
	}
	srv.Server = s
	return srv, nil
}

// result is a tool's answer: its text, and its data as structured content
// when the data is a JSON object (what clients expect there). Real clients
// (Claude Code, Codex) give their model the structured content and not the
// text, so an object without a summary or an error carries the text too,
// and an error without data carries it as {"error": text}.
func result(text string, data json.RawMessage, isError bool) *mcp.CallToolResult {
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
	d := bytes.TrimSpace(data)
	switch {
	case len(d) > 0 && d[0] == '{':
		var fields map[string]json.RawMessage
		if json.Unmarshal(d, &fields) == nil {
			_, hasSummary := fields["summary"]
			if !hasSummary && fields["output"] == nil {
				fields["output"], _ = json.Marshal(text)
			}
			if isError && fields["error"] == nil && !hasSummary {
				fields["error"], _ = json.Marshal(text)
			}
			if b, err := json.Marshal(fields); err == nil {
				d = b
			}
		}
		r.StructuredContent = json.RawMessage(d)
	case isError:
		b, _ := json.Marshal(map[string]string{"error": text})
		r.StructuredContent = json.RawMessage(b)
	}
	return r
}

// outcomeUnknown reports whether err is a commit or an undo whose daemon
// went away while it handled it (daemon.OutcomeUnknownError): its text
// says what is known and how to learn the rest, for the model to read as
// the tool's answer.
func outcomeUnknown(err error) bool {
	var u interface{ OutcomeUnknown() bool }
	return errors.As(err, &u) && u.OutcomeUnknown()
}

func errorResult(text string) *mcp.CallToolResult { return result(text, nil, true) }

// readOnly annotates a tool that changes nothing: the same call gives the
// same answer until the workspace changes.
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }
