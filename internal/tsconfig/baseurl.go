package tsconfig

import (
	"encoding/json"
	"os"
	"path"
	"strings"
)

// WithoutBaseURL returns, for each file of the project at config (it and
// the files it extends, absolute paths) that sets compilerOptions.baseUrl,
// that file as TypeScript 7 takes it: TypeScript 7 removed baseUrl
// (TS5102) and accepts only relative `paths` targets (TS5090), so the
// rewrite does what baseUrl did in the terms 7 keeps, as TypeScript's own
// migration advice has it:
//   - each `paths` target but an absolute one is made relative to the
//     file, through baseUrl, which TypeScript 6 resolves them all against
//     ("packages/*/src" or "./packages/*/src" with baseUrl "lib" becomes
//     "./lib/packages/*/src");
//   - a bare module name resolved against baseUrl becomes the pattern
//     "*" → baseUrl/* (unless the file maps "*" itself): paths that match
//     nothing fall back to node_modules, as baseUrl's lookup did.
//
// The rewrite is only a proposal: whoever uses it holds TypeScript 7's
// answer under it to the project's own compiler's. ok is false when no
// file sets baseUrl, or when the project's `paths` and baseUrl are set in
// different files (a target's meaning then depends on both, and no
// single file's rewrite says it).
func WithoutBaseURL(config string) (files map[string][]byte, ok bool) {
	chain := append([]string{config}, Extended(config)...)
	files = map[string][]byte{}
	pathsAlone := false // a file with paths and no baseUrl
	for _, p := range chain {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		doc, opts, ok := compilerOptions(raw)
		if !ok {
			continue
		}
		_, hasPaths := opts["paths"]
		var base string
		hasBase := json.Unmarshal(opts["baseUrl"], &base) == nil && opts["baseUrl"] != nil
		if !hasBase {
			pathsAlone = pathsAlone || hasPaths
			continue
		}
		out, err := rewriteBaseURL(doc, opts, base)
		if err != nil {
			return nil, false
		}
		files[p] = out
	}
	if len(files) == 0 || pathsAlone {
		// A file with paths and no baseUrl beside one with baseUrl: its
		// targets' base is the other file's.
		return nil, false
	}
	return files, true
}

// compilerOptions reads a tsconfig's text into its top level and its
// compilerOptions.
func compilerOptions(raw []byte) (doc, opts map[string]json.RawMessage, ok bool) {
	if json.Unmarshal(StripJSONC(raw), &doc) != nil {
		return nil, nil, false
	}
	if json.Unmarshal(doc["compilerOptions"], &opts) != nil || opts == nil {
		return nil, nil, false
	}
	return doc, opts, true
}

// rewriteBaseURL drops baseUrl from opts (of doc) and says what it did
// with paths.
func rewriteBaseURL(doc, opts map[string]json.RawMessage, base string) ([]byte, error) {
	var paths map[string][]string
	if p, ok := opts["paths"]; ok {
		if err := json.Unmarshal(p, &paths); err != nil {
			return nil, err
		}
	}
	if paths == nil {
		paths = map[string][]string{}
	}
	for pattern, targets := range paths {
		for i, t := range targets {
			// With baseUrl set, every target but an absolute one is
			// resolved against it, "./x" too.
			if !strings.HasPrefix(t, "/") {
				targets[i] = relativeTo(base, t)
			}
		}
		paths[pattern] = targets
	}
	if _, ok := paths["*"]; !ok {
		paths["*"] = []string{relativeTo(base, "*")}
	}
	delete(opts, "baseUrl")
	var err error
	if opts["paths"], err = json.Marshal(paths); err != nil {
		return nil, err
	}
	if doc["compilerOptions"], err = json.Marshal(opts); err != nil {
		return nil, err
	}
	return json.MarshalIndent(doc, "", "  ")
}

// relativeTo names target, relative to base, relative to the file.
func relativeTo(base, target string) string {
	j := path.Join(base, target)
	if strings.HasPrefix(j, "../") || strings.HasPrefix(j, "/") {
		return j
	}
	return "./" + j
}
