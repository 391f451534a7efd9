package servers

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// folderMarkers are the files that make a directory a project of its own
// for a server that loads one project per workspace folder: gopls builds a
// view per folder, and a module nested in the workspace (golang.org/x/tools
// and its gopls module) is loaded only if it is one; pyright reads a
// configuration per folder.
var folderMarkers = map[string][]string{
	"gopls":   {"go.mod"},
	"pyright": {"pyrightconfig.json"},
}

// maxFolders bounds the folders announced to one server; a workspace with
// more project roots than this is a collection of projects, and the
// nearest ones to the root are kept.
const maxFolders = 64

// projectFolders returns the workspace folders to announce to the server
// of spec in the workspace at root: the root, and every nested directory
// holding one of the server's markers. A go.work file at the root already
// names the modules gopls loads, so it gets the root alone.
func projectFolders(root string, spec Spec) []string {
	markers := folderMarkers[spec.Name]
	if len(markers) == 0 {
		return nil
	}
	if spec.Name == "gopls" && fileExists(filepath.Join(root, "go.work")) {
		return nil
	}
	folders := []string{root}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == root {
			return nil
		}
		if skipForFolders(d.Name()) || len(folders) == maxFolders {
			return fs.SkipDir
		}
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(p, m)); err == nil {
				folders = append(folders, p)
				break
			}
		}
		return nil
	})
	if len(folders) == 1 {
		return nil
	}
	return folders
}

// skipForFolders names directories no project root is looked for in:
// hidden ones, dependencies, and Go's testdata, which the go command
// ignores too.
func skipForFolders(name string) bool {
	switch name {
	case "node_modules", "vendor", "testdata", "__pycache__", "site-packages":
		return true
	}
	return strings.HasPrefix(name, ".")
}
