package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// maxPackageFiles bounds the entries one dependency directory's stamp
// reads. A stamp costs about 15 µs an entry on a loaded 2-core machine
// (BenchmarkPackagesStamp), so 300,000 are some seconds at a session's
// start and at each end of a turn; past the bound the stamp is the
// directory's top (partialStamp), and the end of a turn is not verified.
const maxPackageFiles = 300_000

// partialStamp marks a stamp of a dependency directory's top alone.
const partialStamp = "top:"

// packageCaches are folders at the top of a node_modules that tools keep
// their caches in (find-cache-dir's .cache, Vite's pre-bundled .vite and
// its .vite-temp, Vitest's .vitest). No package name begins with a dot,
// so no import resolves into them, and no package's module names them: a
// test run or a dev server that rewrites them changes nothing a checker
// reads.
var packageCaches = map[string]bool{".cache": true, ".vite": true, ".vite-temp": true, ".vitest": true}

// topOnly are dependency directories stamped by their top alone: tox's
// and nox's environments, which reinstall the project at each run and
// which no checker reads unless configured to.
var topOnly = map[string]bool{".tox": true, ".nox": true}

// installedStamps stamps each dependency directory of dirs apart, so
// that the end of a turn can name the one that changed: every file in it
// a checker may read (a declaration, a module, a package.json, a stub, a
// vendored Go file) by its size and modification time, every other entry
// by its name (a compiled module's .so going is a package gone), every
// link by its target, and the installers' records. The way back restores
// manifests and lock files, not what is installed, and installs are not
// all that changes a package: a generator (prisma generate),
// patch-package and a hand edit rewrite files inside one and leave its
// directories as they were.
func installedStamps(root *workspace.Root, dirs []string) map[string]string {
	out := make(map[string]string, len(dirs))
	for _, d := range dirs {
		out[d] = packagesStamp(root, d, maxPackageFiles, nil)
	}
	return out
}

// packagesStamp digests the dependency directory rel as installedStamps
// says; past max entries, or for a topOnly directory, its top
// (partialStamp, then shadow.InstalledStamp). starts are the files (by
// workspace path) an edit hook kept in the snapshot, with their stamp
// lines as at their first edit ("" missing): the way back takes them
// back, so the stamp takes them as they were, not as the edit left them.
func packagesStamp(root *workspace.Root, rel string, max int, starts map[string]string) string {
	if topOnly[path.Base(rel)] {
		return topStamp(root, rel)
	}
	abs := root.Abs(rel)
	nodeModules := path.Base(rel) == "node_modules"
	var lines []string
	err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: its absence from the list is the stamp's
		}
		if p == abs {
			return nil
		}
		in := filepath.ToSlash(p[len(abs)+1:]) // a walk's paths are below its root
		if d.IsDir() && (nodeModules && packageCaches[in] || d.Name() == "__pycache__") {
			return fs.SkipDir
		}
		if len(lines) >= max {
			return errTooManyEntries
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, in+" -> "+target)
		case d.Type().IsRegular() && hasStart(starts, path.Join(rel, in)):
			// Taken as at its first edit, below.
		case d.Type().IsRegular() && stampedByStat(in):
			if info, err := d.Info(); err == nil {
				lines = append(lines, in+" "+statLine(info))
			}
		default:
			lines = append(lines, in)
		}
		return nil
	})
	if err != nil {
		return topStamp(root, rel)
	}
	for file, start := range starts {
		switch in, ok := strings.CutPrefix(file, rel+"/"); {
		case !ok || start == "":
		case stampedByStat(in):
			lines = append(lines, in+" "+start)
		default:
			lines = append(lines, in)
		}
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:12])
}

// errTooManyEntries stops a dependency directory's walk at its bound.
var errTooManyEntries = errors.New("more entries than the stamp's bound")

// topStamp is a dependency directory's stamp by its top alone.
func topStamp(root *workspace.Root, rel string) string {
	return partialStamp + shadow.InstalledStamp(root, rel)
}

// checkerMayRead reports whether a file inside a dependency directory is
// one a checker may read: code and stubs of any language Anvil checks,
// JSON (package.json, which decides resolution, a tsconfig a package's
// extends, JSON modules), a Python path file or a typed marker. (The
// configuration files of a project, which isSource also counts, are
// JSON there, or not read inside a package; matching every name against
// them would cost the walk of a large node_modules twice over.)
func checkerMayRead(rel string) bool {
	switch path.Ext(rel) {
	case ".json", ".pth":
		return true
	}
	base := path.Base(rel)
	return base == "py.typed" || base == "modules.txt" || servers.LanguageOf(rel) != ""
}

// unseenInside names the dependency directories past the stamp's bound,
// stamped by their top alone: a change inside their packages is not
// seen. (A topOnly directory is stamped so by design.)
func unseenInside(stamps map[string]string) []string {
	var out []string
	for dir, stamp := range stamps {
		if strings.HasPrefix(stamp, partialStamp) && !topOnly[path.Base(dir)] {
			out = append(out, dir+"/")
		}
	}
	sort.Strings(out)
	return out
}

// statLine is a file's stamp line: its size and modification time.
func statLine(info fs.FileInfo) string {
	return strconv.FormatInt(info.Size(), 10) + " " + strconv.FormatInt(info.ModTime().UnixNano(), 10)
}

// hasStart reports whether starts holds the file.
func hasStart(starts map[string]string, file string) bool {
	_, ok := starts[file]
	return ok
}

// packageStart is the stamp line of a file in a dependency directory as
// it is now, before an edit: "" where it is missing.
func packageStart(root *workspace.Root, rel string) string {
	info, err := os.Lstat(root.Abs(rel))
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	return statLine(info)
}

// stampedByStat reports whether a file in a dependency directory is
// stamped by its size and modification time (what a checker may read,
// an installer's record), not by its name alone.
func stampedByStat(in string) bool {
	return checkerMayRead(in) || shadow.IsInstallRecord(path.Base(in))
}
