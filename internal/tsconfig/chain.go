package tsconfig

import (
	"encoding/json"
	"path/filepath"
)

// Extended returns every configuration file the project file at path
// extends, directly or through others, every entry of an extends array
// included (absolute paths; what cannot be read or resolved is left out,
// and the compiler reports it in the project file). A change to any of
// them changes the project as a change to the project file does.
func Extended(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{abs: true}
	queue := []string{abs}
	for len(queue) > 0 && len(seen) <= 4*maxExtends {
		cur := queue[0]
		queue = queue[1:]
		r, err := readRaw(cur)
		if err != nil {
			continue
		}
		for _, spec := range extendsEntries(r.Extends) {
			p, err := resolveExtends(filepath.Dir(cur), spec)
			if err != nil || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
			queue = append(queue, p)
		}
	}
	return out
}

// extendsEntries returns the entries of an extends value: a string, or
// an array of them.
func extendsEntries(v json.RawMessage) []string {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(v, &many)
	return many
}
