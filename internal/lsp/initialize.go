package lsp

import (
	"context"
	"os"
	"path/filepath"
)

// clientCapabilities declares what Anvil handles. Both diagnostic models are
// declared: typescript-language-server sends no publishDiagnostics at all
// unless the client declares it, and pyright and TypeScript 7's server only
// answer pulls when the client declares textDocument.diagnostic.
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
	params := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]any{"name": "anvil"},
		"rootUri":    root,
		"rootPath":   c.cfg.Dir,
		"workspaceFolders": []map[string]any{
			{"uri": root, "name": filepath.Base(c.cfg.Dir)},
		},
		"capabilities": clientCapabilities(),
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
