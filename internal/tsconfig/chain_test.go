package tsconfig

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestExtended(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"tsconfig.json":                         `{"extends": ["./configs/strict", "@acme/base"], /* comment */ "include": ["src"]}`,
		"configs/strict.json":                   `{"extends": "./common.json", "compilerOptions": {"strict": true}}`,
		"configs/common.json":                   `{"extends": "./strict.json"}`,
		"node_modules/@acme/base/tsconfig.json": `{"compilerOptions": {}}`,
		"other.json":                            `{}`,
	})
	got := Extended(filepath.Join(dir, "tsconfig.json"))
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
	}
	want := []string{"configs/strict.json", "node_modules/@acme/base/tsconfig.json", "configs/common.json"}
	if !slices.Equal(got, want) {
		t.Fatalf("Extended = %v, want %v", got, want)
	}
}
