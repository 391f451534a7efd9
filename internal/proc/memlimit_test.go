package proc

import (
	"path"
	"testing"
	"testing/fstest"
)

// The daemon's default memory bound is half of what this process may
// hold: a container's or a slice's control group bounds it below the
// machine's memory, and the bound of a group above the process's holds
// too.
func TestMemLimit(t *testing.T) {
	const total = 16 << 30
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"no control group file", nil, total},
		{"v2 without a bound", map[string]string{"proc/self/cgroup": "0::/user.slice/app\n", "sys/fs/cgroup/user.slice/app/memory.max": "max\n"}, total},
		{"v2 bound", map[string]string{"proc/self/cgroup": "0::/user.slice/app\n", "sys/fs/cgroup/user.slice/app/memory.max": "2147483648\n"}, 2 << 30},
		{"v2 bound above the process's group", map[string]string{"proc/self/cgroup": "0::/user.slice/app\n", "sys/fs/cgroup/user.slice/app/memory.max": "max\n", "sys/fs/cgroup/user.slice/memory.max": "1073741824\n"}, 1 << 30},
		{"v1 memory controller", map[string]string{"proc/self/cgroup": "5:cpu,cpuacct:/x\n4:memory:/docker/abc\n0::/\n", "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "3221225472\n"}, 3 << 30},
		{"v1 without a bound", map[string]string{"proc/self/cgroup": "4:memory:/docker/abc\n", "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "9223372036854771712\n"}, total},
		{"a bound above the machine's memory", map[string]string{"proc/self/cgroup": "0::/a\n", "sys/fs/cgroup/a/memory.max": "68719476736\n"}, total},
		{"garbage", map[string]string{"proc/self/cgroup": "0::/a\n", "sys/fs/cgroup/a/memory.max": "lots\n"}, total},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range tc.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			if got := memLimit(fsys, total); got != tc.want {
				t.Errorf("memLimit = %d, want %d", got, tc.want)
			}
		})
	}
}

// Whatever /proc/self/cgroup holds, the groups read are absolute and
// clean, so a bound file is looked up under /sys/fs/cgroup only.
func FuzzParseCgroups(f *testing.F) {
	f.Add("0::/user.slice/app\n")
	f.Add("4:memory:/docker/abc\n5:cpu,cpuacct:/\n")
	f.Add("0::/../../etc\n")
	f.Add("1:name=systemd:relative\n")
	f.Fuzz(func(t *testing.T, data string) {
		for _, g := range parseCgroups([]byte(data)) {
			if g.path != path.Clean(g.path) || !path.IsAbs(g.path) {
				t.Fatalf("group path %q is not absolute and clean", g.path)
			}
		}
	})
}
