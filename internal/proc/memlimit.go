package proc

import (
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
)

// MemLimit returns the memory this process and its children may hold, in
// bytes: the machine's (MemTotal), or less where a control group bounds
// it (a container's, a systemd slice's); 0 where neither can be read.
func MemLimit() int64 {
	return memLimit(os.DirFS("/"), MemTotal())
}

// memLimit is MemLimit over fsys (the root), with the machine's memory
// total: the smallest bound of the process's control groups and every
// group above them (a parent's bound holds for its children), cgroup v2's
// memory.max and v1's memory.limit_in_bytes alike.
func memLimit(fsys fs.FS, total int64) int64 {
	limit := total
	data, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return limit
	}
	for _, g := range parseCgroups(data) {
		for dir := g.path; ; dir = path.Dir(dir) {
			file := path.Join("sys/fs/cgroup/memory", dir, "memory.limit_in_bytes")
			if g.v2 {
				file = path.Join("sys/fs/cgroup", dir, "memory.max")
			}
			if n, ok := readLimit(fsys, file); ok && (limit == 0 || n < limit) {
				limit = n
			}
			if dir == "/" {
				break
			}
		}
	}
	return limit
}

// cgroup is a control group of the process that bounds memory.
type cgroup struct {
	path string // absolute, clean
	v2   bool
}

// parseCgroups reads /proc/self/cgroup ("id:controllers:path" per line)
// for the groups that bound memory: v2's unified one (id 0, no
// controllers) and v1's memory controller.
func parseCgroups(data []byte) []cgroup {
	var out []cgroup
	for line := range strings.Lines(string(data)) {
		f := strings.SplitN(strings.TrimRight(line, "\n"), ":", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
			continue
		}
		g := cgroup{path: path.Clean(f[2])}
		switch {
		case f[0] == "0" && f[1] == "":
			g.v2 = true
		case !containsField(f[1], "memory"):
			continue
		}
		out = append(out, g)
	}
	return out
}

func containsField(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readLimit reads a memory bound file: bytes, or "max" (v2) and v1's
// page-rounded maximum for none.
func readLimit(fsys fs.FS, name string) (int64, bool) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	// v1 says "no bound" with a number near the largest int64.
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0, false
	}
	return n, true
}
