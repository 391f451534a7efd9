package tsconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// baseUrl, which TypeScript 7 removed, written as the paths 7 keeps.
func TestWithoutBaseURL(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  map[string]map[string][]string // by file: the paths written
	}{
		{"paths through baseUrl, with comments", map[string]string{
			"tsconfig.json": `{
  // the monorepo's packages by name
  "compilerOptions": {"strict": true, "baseUrl": ".", "paths": {"@app/*": ["packages/*/src", "./vendor/*"]},},
}`},
			map[string]map[string][]string{"tsconfig.json": {"@app/*": {"./packages/*/src", "./vendor/*"}, "*": {"./*"}}}},
		{"a relative target resolves against baseUrl too", map[string]string{
			"tsconfig.json": `{"compilerOptions": {"baseUrl": "./src", "paths": {"~/*": ["./*"], "abs": ["/opt/abs.ts"]}}}`},
			map[string]map[string][]string{"tsconfig.json": {"~/*": {"./src/*"}, "abs": {"/opt/abs.ts"}, "*": {"./src/*"}}}},
		{"baseUrl alone: bare names resolve under it", map[string]string{
			"tsconfig.json": `{"compilerOptions": {"baseUrl": "src"}}`},
			map[string]map[string][]string{"tsconfig.json": {"*": {"./src/*"}}}},
		{"a base above", map[string]string{
			"tsconfig.json": `{"extends": "./base.json", "compilerOptions": {"baseUrl": "..", "paths": {"x": ["lib/x.ts"], "*": ["types/*"]}}}`,
			"base.json":     `{"compilerOptions": {"strict": true}}`},
			map[string]map[string][]string{"tsconfig.json": {"x": {"../lib/x.ts"}, "*": {"../types/*"}}}},
		{"no baseUrl", map[string]string{"tsconfig.json": `{"compilerOptions": {"paths": {"x": ["./x.ts"]}}}`}, nil},
		{"paths in one file, baseUrl in its base", map[string]string{
			"tsconfig.json": `{"extends": "./base.json", "compilerOptions": {"paths": {"x": ["x.ts"]}}}`,
			"base.json":     `{"compilerOptions": {"baseUrl": "."}}`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := WithoutBaseURL(filepath.Join(dir, "tsconfig.json"))
			if ok != (tc.want != nil) {
				t.Fatalf("ok = %v, want %v", ok, tc.want != nil)
			}
			for name, wantPaths := range tc.want {
				var doc struct {
					CompilerOptions map[string]json.RawMessage `json:"compilerOptions"`
				}
				if err := json.Unmarshal(got[filepath.Join(dir, name)], &doc); err != nil {
					t.Fatalf("%s: %v\n%s", name, err, got[filepath.Join(dir, name)])
				}
				if _, has := doc.CompilerOptions["baseUrl"]; has {
					t.Errorf("%s still sets baseUrl", name)
				}
				var paths map[string][]string
				_ = json.Unmarshal(doc.CompilerOptions["paths"], &paths)
				if !reflect.DeepEqual(paths, wantPaths) {
					t.Errorf("%s: paths %v, want %v", name, paths, wantPaths)
				}
			}
		})
	}
}
