package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// TrustWorkspace adds dir (absolute, its links resolved) to
// trusted_projects in the user's file at userFile, keeping the
// workspaces already listed, and returns the directory trusted.
func TrustWorkspace(userFile, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	abs = realPath(abs)
	if strings.Contains(abs, ",") {
		return "", errors.New("trusted_projects is a comma-separated list: a directory whose path holds a comma cannot be listed")
	}
	c, err := ReadFile(userFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, t := range c.TrustedProjects {
		if realPath(t) == abs {
			return abs, nil
		}
	}
	k, err := LookupKey("trusted_projects")
	if err != nil {
		return "", err
	}
	return abs, SetInFile(userFile, k, strings.Join(append(slices.Clone(c.TrustedProjects), abs), ","))
}
