package lsp

import (
	"context"
	"os"
	"path/filepath"

	"github.com/anvil-dev/anvil/internal/proc"
)

// clientCapabilities declares what Anvil handles. Both diagnostic models are
// declared: some push servers send no publishDiagnostics at all unless the
// client declares it (typescript-language-server, measured), and pyright
// and TypeScript 7's server only answer pulls when the client declares
// textDocument.diagnostic.
func clientCapabilities() map[string]any {
	return map[string]any{
		"general": map[string]any{
			"positionEncodings": []string{"utf-16"},
		},
		"textDocument": map[string]any{
			"synchronization": map[string]any{"dynamicRegistration": false, "didSave": false},
			"publishDiagnostics": map[string]any{
				"relatedInformation":     true,
				"versionSupport":         true,
				"tagSupport":             map[string]any{"valueSet": []int{1, 2}},
				"codeDescriptionSupport": true,
				"dataSupport":            true,
			},
			"diagnostic": map[string]any{
				"dynamicRegistration":    true,
				"relatedDocumentSupport": true,
			},
			"definition": map[string]any{"linkSupport": true},
			"references": map[string]any{},
			"rename":     map[string]any{"prepareSupport": true},
		},
		"workspace": map[string]any{
			"configuration":    true,
			"workspaceFolders": true,
			"diagnostics":      map[string]any{"refreshSupport": true},
			"workspaceEdit": map[string]any{
				"documentChanges":    true,
				"resourceOperations": []string{"create", "rename", "delete"},
			},
		},
		"window": map[string]any{"workDoneProgress": true},
	}
}

func (c *Client) initialize(ctx context.Context) error {
	root := URIFromPath(c.cfg.Dir)
	// Servers exit when the process named here is gone, and check it by
	// pid. From inside a PID namespace Anvil's pid names nothing (or
	// another process), so there it is left out, as the protocol allows;
	// the parent-death signal ties the server to Anvil instead.
	var pid any
	if c.proc.Isolation() != proc.PIDNamespace {
		pid = os.Getpid()
	}
	params := map[string]any{
		"processId":        pid,
		"clientInfo":       map[string]any{"name": "anvil"},
		"rootUri":          root,
		"rootPath":         c.cfg.Dir,
		"workspaceFolders": c.workspaceFolders(),
		"capabilities":     clientCapabilities(),
	}
	if c.cfg.InitOptions != nil {
		params["initializationOptions"] = c.cfg.InitOptions
	}
	var res InitializeResult
	if err := c.call(ctx, "initialize", params, &res); err != nil {
		return err
	}
	c.mu.Lock()
	c.caps = res.Capabilities
	if res.ServerInfo != nil {
		c.info = *res.ServerInfo
	}
	if c.info.Name == "" {
		c.info.Name = c.cfg.Name
	}
	c.mu.Unlock()
	if err := c.notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	if c.cfg.Settings != nil {
		// Some servers (pyright) read settings only from this notification
		// or only after it prompts them to ask workspace/configuration.
		return c.notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": c.cfg.Settings})
	}
	return nil
}

// SupportsPull reports whether the server answers textDocument/diagnostic,
// declared statically or registered dynamically.
func (c *Client) SupportsPull() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if provided(c.caps.DiagnosticProvider) {
		return true
	}
	_, ok := c.state.registrations["textDocument/diagnostic"]
	return ok
}

// workspaceFolders lists the configured folders, or the root alone.
func (c *Client) workspaceFolders() []map[string]string {
	dirs := c.cfg.Folders
	if len(dirs) == 0 {
		dirs = []string{c.cfg.Dir}
	}
	out := make([]map[string]string, len(dirs))
	for i, d := range dirs {
		out[i] = map[string]string{"uri": string(URIFromPath(d)), "name": filepath.Base(d)}
	}
	return out
}
