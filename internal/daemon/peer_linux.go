package daemon

import (
	"net"
	"os"
	"syscall"
)

// samePeerUser reports whether the process at the other end of c runs as
// this user. The socket's directory and mode already keep others out;
// this holds even if they were loosened.
func samePeerUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || credErr != nil {
		return false
	}
	return int(cred.Uid) == os.Geteuid()
}
