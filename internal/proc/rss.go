package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TreeRSS returns the resident memory, in KiB, of the process pid and all
// its descendants (a language server is often a launcher and a worker),
// read from /proc; 0 where /proc is not there. Shared pages are counted in
// each process, so this is an upper bound.
func TreeRSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var total int64
	queue := []int{pid}
	seen := map[int]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		total += rssKiB(p)
		queue = append(queue, children[p]...)
	}
	return total
}

// parentOf reads the parent pid from /proc/pid/stat, whose second field
// (the command, in parentheses) may itself hold spaces and parentheses.
func parentOf(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

func rssKiB(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// DescendantsRSS returns the resident memory, in KiB, of every process
// pid started (directly or not), itself left out; an upper bound, as
// TreeRSS.
func DescendantsRSS(pid int) int64 {
	return max(TreeRSS(pid)-rssKiB(pid), 0)
}

// MemTotal returns the machine's memory in bytes, from /proc/meminfo; 0
// where it cannot be read.
func MemTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}
