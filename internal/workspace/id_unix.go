//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

func idOf(info fs.FileInfo) ID {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return ID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
	}
	return ID{}
}
