package shadow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// What the servers resolve imports against beside the project's own files
// changes when packages are installed (npm install, pip install, a
// regenerated client in an ignored directory): the language servers keep
// what they resolved, and tsserver never hears of an ignored path. The
// scan stamps each family's dependencies; when a stamp changes, the
// family's servers are restarted before their next check, and every cache
// keyed by the snapshot's fingerprint (baselines) is dropped with it.

// lockFiles are the files that record what is installed, by family.
var lockFiles = map[string]string{
	"package-lock.json": "ecma", "npm-shrinkwrap.json": "ecma", "pnpm-lock.yaml": "ecma", "yarn.lock": "ecma", "bun.lockb": "ecma", "package.json": "ecma",
	"go.sum": "go", "go.work": "go", "go.work.sum": "go",
	"poetry.lock": "python", "uv.lock": "python", "Pipfile.lock": "python", "pdm.lock": "python",
	"Cargo.lock": "rust",
}

// IsInstallRecord reports whether a file of this name is one installers
// update inside a dependency directory when they change it
// (node_modules' lock copies, a virtual environment's pyvenv.cfg,
// vendor's modules.txt).
func IsInstallRecord(name string) bool { return slices.Contains(installRecords, name) }

// installRecords are what installers update inside a dependency
// directory when they change it, by the directory's kind.
var installRecords = []string{
	".package-lock.json", ".modules.yaml", ".yarn-state.yml", ".yarn-integrity", // node_modules
	"pyvenv.cfg",  // a virtual environment
	"modules.txt", // vendor
}

// dependencyStamps digests, per family, the dependency directories the scan
// left out (each directory's own modification time, which an install
// adding or removing a package changes, and the installers' records in
// it), every lock file and manifest of the snapshot (ignored ones at the
// root included), and the requirements files.
func dependencyStamps(root *workspace.Root, snap *Snapshot) map[string]string {
	stamps := map[string][]string{}
	add := stamper(root, stamps)
	installedInto(add, root, snap.DependencyDirs)
	for rel := range snap.Files {
		base := path.Base(rel)
		if fam, ok := lockFiles[base]; ok {
			add(fam, root.Abs(rel))
		} else if strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt") {
			add("python", root.Abs(rel))
		}
	}
	// Lock files an ignore rule hides are still read by the installers.
	for base, fam := range lockFiles {
		if _, ok := snap.Files[base]; !ok {
			add(fam, root.Abs(base))
		}
	}
	return digests(stamps)
}

// InstalledStamp digests what an install changes in the dependency
// directory dir (workspace-relative): the directory's own modification
// time and the installers' records in it, as the scan's stamps take them.
// The lock files and manifests are the project's files, which a change
// set covers.
func InstalledStamp(root *workspace.Root, dir string) string {
	stamps := map[string][]string{}
	installedInto(stamper(root, stamps), root, []string{dir})
	for _, d := range digests(stamps) {
		return d // one directory is of one family
	}
	return ""
}

// stamper returns a function that adds a file's stamp (its path, size
// and modification time) to its family's list, if it is there.
func stamper(root *workspace.Root, stamps map[string][]string) func(fam, p string) {
	return func(fam, p string) {
		info, err := os.Stat(p)
		if err != nil {
			return
		}
		rel, _ := filepath.Rel(root.Dir(), p)
		stamps[fam] = append(stamps[fam], fmt.Sprintf("%s %d %d", filepath.ToSlash(rel), info.Size(), info.ModTime().UnixNano()))
	}
}

func digests(stamps map[string][]string) map[string]string {
	out := map[string]string{}
	for fam, list := range stamps {
		sort.Strings(list)
		sum := sha256.Sum256([]byte(strings.Join(list, "\n")))
		out[fam] = hex.EncodeToString(sum[:12])
	}
	return out
}

// installedInto stamps the dependency directories dirs and the
// installers' records in them.
func installedInto(add func(fam, p string), root *workspace.Root, dirs []string) {
	for _, dir := range dirs {
		abs := root.Abs(dir)
		fam := "ecma"
		switch {
		case path.Base(dir) == "vendor":
			fam = "go"
		case path.Base(dir) != "node_modules" && path.Base(dir) != "bower_components" && path.Base(dir) != "jspm_packages":
			fam = "python"
		}
		add(fam, abs)
		for _, rec := range installRecords {
			add(fam, filepath.Join(abs, rec))
		}
		if fam == "python" {
			// site-packages, where pip puts what it installs.
			libs, _ := filepath.Glob(filepath.Join(abs, "lib", "python*", "site-packages"))
			for _, l := range libs {
				add(fam, l)
			}
		}
	}
}
