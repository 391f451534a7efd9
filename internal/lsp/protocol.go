package lsp

import "encoding/json"

// The slice of LSP 3.17 types Anvil uses. Field names follow the
// specification; optional fields are pointers or omitempty.

// DocumentURI is a file:// URI.
type DocumentURI string

// Position is a zero-based line and a character offset in UTF-16 code units
// (the encoding Anvil negotiates).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open span between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   DocumentURI `json:"uri"`
	Range Range       `json:"range"`
}

// LocationLink is the richer answer some servers give to definition requests.
type LocationLink struct {
	OriginSelectionRange *Range      `json:"originSelectionRange,omitempty"`
	TargetURI            DocumentURI `json:"targetUri"`
	TargetRange          Range       `json:"targetRange"`
	TargetSelectionRange Range       `json:"targetSelectionRange"`
}

// DiagnosticSeverity ranks a diagnostic; 1 is an error.
type DiagnosticSeverity int

// Severities defined by the protocol.
const (
	SeverityError       DiagnosticSeverity = 1
	SeverityWarning     DiagnosticSeverity = 2
	SeverityInformation DiagnosticSeverity = 3
	SeverityHint        DiagnosticSeverity = 4
)

func (s DiagnosticSeverity) String() string {
	switch s {
	case SeverityError, 0: // a missing severity is treated as an error
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInformation:
		return "information"
	case SeverityHint:
		return "hint"
	}
	return "unknown"
}

// Diagnostic is one problem a server reports.
type Diagnostic struct {
	Range              Range                          `json:"range"`
	Severity           DiagnosticSeverity             `json:"severity,omitempty"`
	Code               json.RawMessage                `json:"code,omitempty"` // number or string
	Source             string                         `json:"source,omitempty"`
	Message            string                         `json:"message"`
	RelatedInformation []DiagnosticRelatedInformation `json:"relatedInformation,omitempty"`
}

// CodeString returns the diagnostic code as text ("2322", "UnusedVar"), or "".
func (d Diagnostic) CodeString() string {
	if len(d.Code) == 0 || string(d.Code) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(d.Code, &s) == nil {
		return s
	}
	return string(d.Code)
}

// IsError reports whether the diagnostic blocks a change: errors, and
// diagnostics whose server left the severity out.
func (d Diagnostic) IsError() bool { return d.Severity == SeverityError || d.Severity == 0 }

// DiagnosticRelatedInformation points at another location relevant to a
// diagnostic.
type DiagnosticRelatedInformation struct {
	Location Location `json:"location"`
	Message  string   `json:"message"`
}

// PublishDiagnosticsParams is the payload of textDocument/publishDiagnostics.
type PublishDiagnosticsParams struct {
	URI         DocumentURI  `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI DocumentURI `json:"uri"`
}

// TextDocumentItem is an opened document.
type TextDocumentItem struct {
	URI        DocumentURI `json:"uri"`
	LanguageID string      `json:"languageId"`
	Version    int         `json:"version"`
	Text       string      `json:"text"`
}

// VersionedTextDocumentIdentifier names a document at a version.
type VersionedTextDocumentIdentifier struct {
	URI     DocumentURI `json:"uri"`
	Version int         `json:"version"`
}

// TextDocumentContentChangeEvent with no range replaces the whole document;
// Anvil always sends full contents.
type TextDocumentContentChangeEvent struct {
	Text string `json:"text"`
}

// TextDocumentPositionParams locates a position in a document.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// TextEdit replaces a range with new text.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// OptionalVersionedTextDocumentIdentifier is a document at a version, or at
// whatever version the server has when Version is null.
type OptionalVersionedTextDocumentIdentifier struct {
	URI     DocumentURI `json:"uri"`
	Version *int        `json:"version"`
}

// TextDocumentEdit is a set of edits to one document.
type TextDocumentEdit struct {
	TextDocument OptionalVersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                              `json:"edits"`
}

// DocumentChange is one element of WorkspaceEdit.documentChanges: a text
// edit, or a create, rename or delete resource operation (told apart by Kind).
type DocumentChange struct {
	// Kind is "create", "rename" or "delete" for resource operations and empty
	// for a TextDocumentEdit.
	Kind string `json:"kind,omitempty"`
	// Resource operations.
	URI    DocumentURI `json:"uri,omitempty"`
	OldURI DocumentURI `json:"oldUri,omitempty"`
	NewURI DocumentURI `json:"newUri,omitempty"`
	// Text edit.
	TextDocument *OptionalVersionedTextDocumentIdentifier `json:"textDocument,omitempty"`
	Edits        []TextEdit                               `json:"edits,omitempty"`
}

// WorkspaceEdit is a server's answer to rename: edits across files.
type WorkspaceEdit struct {
	Changes         map[DocumentURI][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []DocumentChange           `json:"documentChanges,omitempty"`
}

// DocumentDiagnosticReport is the answer to textDocument/diagnostic. Kind is
// "full" or "unchanged" (gopls sends "" for full; both are accepted).
type DocumentDiagnosticReport struct {
	Kind     string       `json:"kind"`
	ResultID string       `json:"resultId,omitempty"`
	Items    []Diagnostic `json:"items"`
}

// ProgressParams is the payload of $/progress.
type ProgressParams struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind    string `json:"kind"` // begin, report, end
		Title   string `json:"title,omitempty"`
		Message string `json:"message,omitempty"`
	} `json:"value"`
}

// Registration is one dynamic capability registration from the server.
type Registration struct {
	ID              string          `json:"id"`
	Method          string          `json:"method"`
	RegisterOptions json.RawMessage `json:"registerOptions,omitempty"`
}

// ServerInfo names the server, from the initialize result.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ServerCapabilities holds what Anvil reads of the server's capabilities.
type ServerCapabilities struct {
	PositionEncoding   string          `json:"positionEncoding,omitempty"`
	DiagnosticProvider json.RawMessage `json:"diagnosticProvider,omitempty"`
	DefinitionProvider json.RawMessage `json:"definitionProvider,omitempty"`
	ReferencesProvider json.RawMessage `json:"referencesProvider,omitempty"`
	RenameProvider     json.RawMessage `json:"renameProvider,omitempty"`
}

// InitializeResult is the answer to initialize.
type InitializeResult struct {
	Capabilities ServerCapabilities `json:"capabilities"`
	ServerInfo   *ServerInfo        `json:"serverInfo,omitempty"`
}

// provided reports whether a capability value is present and not false.
func provided(raw json.RawMessage) bool {
	s := string(raw)
	return len(raw) > 0 && s != "false" && s != "null"
}
