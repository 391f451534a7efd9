package pyconfig

import (
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestExtended(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"app/pyrightconfig.json": `{"extends": "../configs/base.json", // comment
			"include": ["."]}`,
		"configs/base.json":    `{"extends": "./strict.toml"}`,
		"configs/strict.toml":  "[tool.pyright]\nextends = \"base.json\"\nstrict = [\"**\"]\n",
		"other/pyproject.toml": "[tool.pyright]\nextends = \"../configs/base.json\"\n",
		"plain/pyproject.toml": "[project]\nname = \"x\"\n",
	})
	for d, want := range map[string][]string{
		"app":   {"configs/base.json", "configs/strict.toml"},
		"other": {"configs/base.json", "configs/strict.toml"},
		"plain": nil,
	} {
		if got := Extended(dir, d); !slices.Equal(got, want) {
			t.Errorf("Extended(%s) = %v, want %v", d, got, want)
		}
	}
}
