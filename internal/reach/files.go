package reach

import "sort"

// FileStat is what a scan records of a file: enough to tell that it
// changed.
type FileStat struct {
	Size    int64
	ModTime int64 // UnixNano
	Abs     string
}

// Files are the workspace's files at one moment (a scan's snapshot),
// by workspace-relative path.
type Files map[string]FileStat

// Sorted returns the paths in order.
func (f Files) Sorted() []string {
	out := make([]string, 0, len(f))
	for p := range f {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
