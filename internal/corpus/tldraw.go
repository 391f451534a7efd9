package corpus

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TLDrawVersion is the tldraw release the TLDraw project is laid out from.
const TLDrawVersion = "5.1.1"

// tldrawPackages are the npm packages of the tldraw monorepo that ship
// their TypeScript sources; each becomes packages/NAME/src.
var tldrawPackages = []string{"tldraw", "@tldraw/editor", "@tldraw/tlschema", "@tldraw/store", "@tldraw/utils", "@tldraw/state",
	"@tldraw/state-react", "@tldraw/validate", "@tldraw/sync-core", "@tldraw/driver", "@tldraw/sync"}

// tldrawDeps are the third-party packages the sources import, at the
// versions that install together (pinned, so every run checks the same
// program): types for React, tiptap, the test runner the tests' types
// come from, and TypeScript 5.9, the project's compiler.
var tldrawDeps = []string{"typescript@5.9.3", "@tiptap/core@3.35.0", "@tiptap/extension-code@3.35.0", "@tiptap/extension-highlight@3.35.0",
	"@tiptap/extension-list@3.35.0", "@tiptap/pm@3.35.0", "@tiptap/react@3.35.0", "@tiptap/starter-kit@3.35.0", "classnames@2.5.1", "idb@7.1.1",
	"lz-string@1.5.0", "radix-ui@1.8.1", "eventemitter3@4.0.7", "is-plain-object@5.1.0", "rbush@3.0.1", "jittered-fractional-indexing@1.0.1",
	"lodash.isequal@4.5.0", "lodash.isequalwith@4.4.0", "lodash.throttle@4.1.1", "lodash.uniq@4.5.0", "nanoevents@7.0.1", "ws@8.23.0",
	"react@19.3.1", "react-dom@19.3.1", "@types/react@19.3.3", "@types/react-dom@19.3.0", "@types/rbush@3.0.4",
	"@types/wicg-file-system-access@2020.9.8", "@types/lodash.isequal@4.5.8", "@types/lodash.isequalwith@4.4.9", "@types/lodash.throttle@4.1.9",
	"@types/lodash.uniq@4.5.9", "@types/ws@8.18.2", "@types/node@22.20.7", "vitest@3.2.7", "@testing-library/dom@10.4.2",
	"@testing-library/react@16.3.3", "@peculiar/webcrypto@1.7.2", "fake-indexeddb@4.0.2", "resize-observer-polyfill@1.5.1",
	"@types/benchmark@2.1.5", "benchmark@2.1.4", "lodash@4.18.1", "@types/lodash@4.17.27", "raf@3.4.1", "kleur@4.1.5",
	"uuid-by-string@4.0.0", "uuid-readable@0.0.2", "@types/uuid-readable@0.0.3", "jest-diff@29.7.0"}

// tldrawTSConfig checks every package, tests included, as one program
// (1,012 files): the packages import each other through paths to their
// sources. The tests' module augmentations make 27 errors in it, which
// the project has before any change.
const tldrawTSConfig = `{
  "compilerOptions": {
    "target": "ES2022", "lib": ["DOM", "DOM.Iterable", "ESNext"], "module": "ESNext", "moduleResolution": "bundler",
    "jsx": "react-jsx", "strict": true, "noEmit": true, "skipLibCheck": true, "isolatedModules": true,
    "resolveJsonModule": true, "esModuleInterop": true, "forceConsistentCasingInFileNames": true,
    "useDefineForClassFields": true, "experimentalDecorators": true, "noFallthroughCasesInSwitch": true,
    "types": ["node", "vitest/globals"], "baseUrl": ".",
    "paths": {"tldraw": ["packages/tldraw/src/index.ts"], "@tldraw/*": ["packages/*/src/index.ts"]}
  },
  "include": ["packages/*/src/**/*.ts", "packages/*/src/**/*.tsx"],
  "exclude": ["node_modules"]
}
`

// TLDraw returns a cached layout of the tldraw monorepo's sources, from
// the npm registry: a real TypeScript project of 1,012 files pinned to
// TypeScript 5.9, with hubs (each package's index.ts, tlschema's shape
// types) and 27 errors before any change. Callers copy it (see
// [CopyProject]): its node_modules is shared.
func (c Cache) TLDraw(t testing.TB) string {
	t.Helper()
	return c.entry(t, "project", "tldraw-"+TLDrawVersion, func(ctx context.Context, dir string) error {
		tarballs := filepath.Join(dir, ".tarballs")
		if err := os.MkdirAll(tarballs, 0o755); err != nil {
			return err
		}
		for _, p := range tldrawPackages {
			if _, err := c.run(ctx, tarballs, "npm", "pack", "--silent", p+"@"+TLDrawVersion); err != nil {
				return err
			}
			file := strings.ReplaceAll(strings.TrimPrefix(p, "@"), "/", "-") + "-" + TLDrawVersion + ".tgz"
			name := strings.TrimPrefix(p, "@tldraw/")
			if err := untarSources(filepath.Join(tarballs, file), filepath.Join(dir, "packages", name)); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		os.RemoveAll(tarballs)
		files := map[string]string{
			"package.json":  `{"name": "tldraw-corpus", "private": true, "devDependencies": {"typescript": "~5.9.3"}}`,
			"tsconfig.json": tldrawTSConfig,
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				return err
			}
		}
		args := append([]string{"install", "--no-save", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"}, tldrawDeps...)
		_, err := c.run(ctx, dir, "npm", args...)
		return err
	})
}

// untarSources extracts package/src and package/package.json of an npm
// tarball into dst.
func untarSources(tgz, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(h.Name, "package/")
		if !ok || h.Typeflag != tar.TypeReg || (rel != "package.json" && !strings.HasPrefix(rel, "src/")) || strings.Contains(rel, "..") {
			continue
		}
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		out, err := os.Create(p)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
}

// CopyProject copies the project at src into dst (created), except its
// node_modules, which dst shares through a symlink.
func CopyProject(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "node_modules" || rel == ".complete" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(src, "node_modules"), filepath.Join(dst, "node_modules")); err != nil {
		t.Fatal(err)
	}
}
