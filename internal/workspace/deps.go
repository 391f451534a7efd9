package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// Dependencies are inputs to the project's code, not part of it: whatever
// the ignore files say, a directory of installed packages is never walked
// for the project's files, checked or reported as the project's. The
// servers still read it to resolve imports.

// dependencyNames are directory names that always hold installed
// packages.
var dependencyNames = map[string]bool{
	"node_modules": true, "bower_components": true, "jspm_packages": true,
	"site-packages": true, "dist-packages": true, "__pypackages__": true,
	".venv": true, ".tox": true, ".nox": true,
}

// IsDependencyDir reports whether the directory at abs holds installed
// dependencies: one of the well-known names, a Python virtual environment
// (it has a pyvenv.cfg, whatever its name), or a Go vendor directory (a
// vendor/modules.txt).
func IsDependencyDir(abs string) bool {
	name := filepath.Base(abs)
	if dependencyNames[name] {
		return true
	}
	if exists(filepath.Join(abs, "pyvenv.cfg")) {
		return true
	}
	return name == "vendor" && exists(filepath.Join(abs, "modules.txt"))
}

// InDependencyDir reports whether the workspace-relative path rel lies in
// a directory that holds dependencies, judging by the names on its path
// and, for the directories that need it, what they hold.
func (r *Root) InDependencyDir(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range len(parts) - 1 {
		if dependencyNames[parts[i]] {
			return true
		}
	}
	dir := r.dir
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		if IsDependencyDir(dir) {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
