package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// maxPackageFiles bounds the files one dependency directory's stamp
// stats. A node_modules of 100,000 files is stamped in about a second on
// a 2-core machine; past the bound the stamp is the directory's top
// (partialStamp), and the end of a turn says what it cannot see.
const maxPackageFiles = 300_000

// partialStamp marks a stamp of a dependency directory's top alone.
const partialStamp = "top:"

// packageCaches are folders at the top of a node_modules that tools keep
// their caches in (find-cache-dir's .cache, Vite's pre-bundled .vite).
// No package name begins with a dot, so no import resolves into them,
// and no package's module names them: a test run or a dev server that
// rewrites them changes nothing a checker reads.
var packageCaches = map[string]bool{".cache": true, ".vite": true}

// installedStamps stamps each dependency directory of dirs apart, so
// that the end of a turn can name the one that changed: every file in it
// a checker may read (a declaration, a module, a package.json, a stub, a
// vendored Go file) by its size and modification time, and every link by
// its target. The way back restores manifests and lock files, not what
// is installed, and installs are not all that changes a package: a
// generator (prisma generate), patch-package and a hand edit rewrite
// files inside one and leave its directories as they were.
func installedStamps(root *workspace.Root, dirs []string) map[string]string {
	out := make(map[string]string, len(dirs))
	for _, d := range dirs {
		out[d] = packagesStamp(root, d, maxPackageFiles)
	}
	return out
}

// packagesStamp digests what the checkers may read in the dependency
// directory rel; past max files, the directory's top (partialStamp).
func packagesStamp(root *workspace.Root, rel string, max int) string {
	abs := root.Abs(rel)
	nodeModules := path.Base(rel) == "node_modules"
	var lines []string
	over := false
	err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: its absence from the list is the stamp's
		}
		in, _ := filepath.Rel(abs, p)
		in = filepath.ToSlash(in)
		switch {
		case d.IsDir():
			if nodeModules && packageCaches[in] {
				return fs.SkipDir
			}
			return nil
		case len(lines) >= max:
			over = true
			return fs.SkipAll
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, in+" -> "+target)
		case d.Type().IsRegular() && checkerMayRead(in):
			info, err := d.Info()
			if err == nil {
				lines = append(lines, fmt.Sprintf("%s %d %d", in, info.Size(), info.ModTime().UnixNano()))
			}
		}
		return nil
	})
	if over || err != nil {
		return partialStamp + shadow.InstalledStamp(root, rel)
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:12])
}

// checkerMayRead reports whether a file inside a dependency directory is
// one a checker may read: code and stubs of any language Anvil checks,
// JSON (package.json, which decides resolution, and JSON modules), a
// Python path file or a typed marker.
func checkerMayRead(rel string) bool {
	base := path.Base(rel)
	return isSource(rel) || path.Ext(rel) == ".json" || path.Ext(rel) == ".pth" || base == "py.typed" || base == "modules.txt"
}

// unseenInside names the dependency directories whose stamp covers their
// top alone: a change inside their packages is not seen.
func unseenInside(stamps map[string]string) []string {
	var out []string
	for dir, stamp := range stamps {
		if strings.HasPrefix(stamp, partialStamp) {
			out = append(out, dir+"/")
		}
	}
	sort.Strings(out)
	return out
}

// topStamps stamps each dependency directory's top alone, as snapshots
// taken before installedStamps read inside the packages did: such a
// snapshot is compared by its own kind of stamp.
func topStamps(root *workspace.Root, dirs []string) map[string]string {
	out := make(map[string]string, len(dirs))
	for _, d := range dirs {
		out[d] = shadow.InstalledStamp(root, d)
	}
	return out
}
