package shadow

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// gopls checks a file the default build leaves out (//go:build windows)
// in a view of that build, and tags what the view reports with it
// ("undefined: p0.L2 [windows]"). A view exists while such a file is
// open: a change that retags a file windows opens it after the change
// only, and its diagnostics, of every package of the module under that
// build, have nothing before the change to be compared with. They are not
// new errors of the change; each file they are about is unverified, with
// why. (The batch checker builds the default configuration only.)

// buildConfigTag matches the configuration gopls appends to a
// diagnostic of a view other than the default one.
var buildConfigTag = regexp.MustCompile(` \[([a-z0-9]+(?:,[a-z0-9]+)*)\]$`)

// withoutUnbaselinedViews removes from cr.After the diagnostics of build
// configurations no diagnostic before the change carries, and returns the
// files (absolute) they were about, with the configuration.
func withoutUnbaselinedViews(spec servers.Spec, cr *servers.CheckResult) map[string]string {
	if spec.Name != "gopls" {
		return nil
	}
	seen := map[string]bool{}
	for _, ds := range cr.Before {
		for _, d := range ds {
			if m := buildConfigTag.FindStringSubmatch(d.Message); m != nil {
				seen[m[1]] = true
			}
		}
	}
	orphaned := map[string]string{}
	for _, abs := range slices.Sorted(maps.Keys(cr.After)) {
		var kept []lsp.Diagnostic
		for _, d := range cr.After[abs] {
			if m := buildConfigTag.FindStringSubmatch(d.Message); m != nil && !seen[m[1]] {
				if d.IsError() {
					orphaned[abs] = m[1]
				}
				continue
			}
			kept = append(kept, d)
		}
		if len(kept) < len(cr.After[abs]) {
			cr.After[abs] = kept
		}
	}
	return orphaned
}

// unbaselinedReason says why a file's diagnostics of a build
// configuration were not judged.
func unbaselinedReason(config string) string {
	return fmt.Sprintf("gopls reports errors of it under the %s build only after the change (a file the change tags for that build opens the view), with nothing of that build before the change to compare them to", config)
}
