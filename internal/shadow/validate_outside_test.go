package shadow

import "testing"

// A change to an existing file the scan leaves out (a .gitignored
// generated file, an installed package's file) is checked as its checker
// reads it: the importers that break are found, and the validation never
// fails on it (it once took the whole process down).
func TestChangesOutsideTheScanAreChecked(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{files: map[string]string{
		".gitignore":                    "src/gen/\n",
		"src/gen/api.ts":                "export interface Api { id: number }\n",
		"src/client.ts":                 "import { Api } from \"./gen/api\";\n\nexport const api: Api = { id: 1 };\n",
		"node_modules/lib/package.json": `{"name": "lib", "types": "index.d.ts"}`,
		"node_modules/lib/index.d.ts":   "export declare function lib(): number;\n",
		"src/uses_lib.ts":               "import { lib } from \"lib\";\n\nexport const n: number = lib();\n",
	}})
	h.requireServer("typescript")
	t.Run("an ignored generated file", func(t *testing.T) {
		res := h.validate(map[string]string{"src/gen/api.ts": "export interface Api { id: string }\n"})
		expect(t, res, Rejected, "src/client.ts")
	})
	t.Run("an installed package's file", func(t *testing.T) {
		res := h.validate(map[string]string{"node_modules/lib/index.d.ts": "export declare function lib(): string;\n"})
		if res.Verdict == Clean {
			t.Fatalf("a change that breaks src/uses_lib.ts is clean\n%s", describe(res))
		}
	})
}
