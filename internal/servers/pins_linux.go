package servers

import (
	"os"
	"syscall"
)

// fileChange is fi's device, inode and change time.
func fileChange(fi os.FileInfo) (dev, ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return st.Dev, st.Ino, st.Ctim.Nano()
}
