package plan

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

func TestCheck(t *testing.T) {
	root, err := workspace.New(testfs.Tree(t, map[string]string{"src/a.ts": "", "src/b.ts": ""}))
	if err != nil {
		t.Fatal(err)
	}
	good := Plan{Goal: "g", Steps: []string{"s"}, FilesToModify: []string{"./src/a.ts"}, FilesToCreate: []string{"src/new.ts"}}
	if err := good.Check(root); err != nil {
		t.Fatal(err)
	}
	if strings.Join(good.Files(), ",") != "src/a.ts,src/new.ts" {
		t.Errorf("paths not normalised: %v", good.Files())
	}
	bad := Plan{Goal: " ", FilesToModify: []string{"src/missing.ts", "src", "../out.ts", "src/a.ts"}, FilesToCreate: []string{"src/b.ts", "src/a.ts"}}
	err = bad.Check(root)
	for _, want := range []string{
		"goal is empty", "steps is empty",
		"src/missing.ts is in files_to_modify but does not exist",
		"src is a directory", "outside the workspace",
		"src/b.ts is in files_to_create but already exists",
		"src/a.ts is listed twice",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
	empty := Plan{Goal: "g", Steps: []string{"s"}}
	if err := empty.Check(root); err == nil || !strings.Contains(err.Error(), "names no files") {
		t.Errorf("a plan without files: %v", err)
	}
}

func TestMarkdownHasAllFields(t *testing.T) {
	p := Plan{Goal: "G", Context: "C", FilesToModify: []string{"m.ts"}, Steps: []string{"one", "two"}, VerificationCriteria: []string{"V"}, Risks: []string{"R"}}
	md := p.Markdown()
	for _, want := range []string{"Goal: G", "Context: C", "Files to modify:\n  - m.ts", "Files to create:\n  (none)", "  2. two", "Verification criteria:\n  - V", "Risks:\n  - R"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
