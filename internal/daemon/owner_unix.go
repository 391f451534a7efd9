//go:build unix

package daemon

import (
	"io/fs"
	"syscall"
)

// ownerOf returns the uid owning the file info describes.
func ownerOf(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
