package shadow

import (
	"regexp"
	"strings"
)

// fileDiags is one file's error diagnostics before and after a change, in
// Anvil's form, with the map from old lines to new.
type fileDiags struct {
	before, after []Diag
	lines         lineMap
}

// delta splits a file's errors into new, resolved and pre-existing.
//
// Diagnostics carry no identity across two runs of a server, so they are
// paired in passes from the strictest to the loosest, each pairing at most
// once (a multiset: two identical errors where there was one is one new):
//
//  1. same message and code, and the old line maps onto the new one;
//  2. same code and source at the mapped line, message reworded (a rename
//     turns "... on type 'User[]'" into "... on type 'Account[]'");
//  3. same message and code anywhere in the file (code that moved).
//
// What is left after is new; what is left before is resolved.
func delta(f fileDiags) (newErrs, resolved, pre []Diag) {
	usedB := make([]bool, len(f.before))
	usedA := make([]bool, len(f.after))
	pair := func(match func(b, a Diag) bool) {
		for i, b := range f.before {
			if usedB[i] {
				continue
			}
			for j, a := range f.after {
				if !usedA[j] && match(b, a) {
					usedB[i], usedA[j] = true, true
					pre = append(pre, a)
					break
				}
			}
		}
	}
	sameLine := func(b, a Diag) bool { return f.lines.Map(b.Line-1) == a.Line-1 }
	pair(func(b, a Diag) bool { return sameKey(b, a) && sameLine(b, a) })
	pair(func(b, a Diag) bool {
		return b.Code == a.Code && b.Source == a.Source && sameLine(b, a) &&
			(b.Code != "" || normalizeMessage(b.Message) == normalizeMessage(a.Message))
	})
	pair(sameKey)
	for j, a := range f.after {
		if !usedA[j] {
			newErrs = append(newErrs, a)
		}
	}
	for i, b := range f.before {
		if !usedB[i] {
			resolved = append(resolved, b)
		}
	}
	return newErrs, resolved, pre
}

func sameKey(b, a Diag) bool {
	return b.Message == a.Message && b.Code == a.Code && b.Source == a.Source
}

// quoted matches the parts of a message that name things: 'x', "x", `x`.
var quoted = regexp.MustCompile("'[^']*'|\"[^\"]*\"|`[^`]*`")

// normalizeMessage blanks the quoted names in a message, so that messages
// that differ only in the identifiers they mention compare equal.
func normalizeMessage(m string) string {
	return strings.TrimSpace(quoted.ReplaceAllString(m, "'_'"))
}
