package lsp

import (
	"net/url"
	"path/filepath"
)

// URIFromPath returns the file:// URI of an absolute path.
func URIFromPath(path string) DocumentURI {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return DocumentURI(u.String())
}

// Path returns the file system path of a file:// URI, or "" for other schemes.
func (u DocumentURI) Path() string {
	parsed, err := url.Parse(string(u))
	if err != nil || parsed.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(parsed.Path)
}
