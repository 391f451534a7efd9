package daemon

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// peerCred returns the credentials of the process at the other end of c,
// as the kernel recorded them when the connection was made: its uid and
// its pid as seen from this process's PID namespace (0 when it is not
// visible from here).
func peerCred(c net.Conn) (*syscall.Ucred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, fmt.Errorf("not a Unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, credErr
}

// trustedPeer says why the process at the other end of c may not use the
// daemon ("" if it may): it must run as this user, in this process's user
// and PID namespaces. The uid alone does not do: a process in a shadow
// tree runs in namespaces of its own, mapped to this same user, and must
// never drive the gate that writes the user's files.
func trustedPeer(c net.Conn) string {
	cred, err := peerCred(c)
	if err != nil {
		return "its credentials cannot be read: " + err.Error()
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Sprintf("it runs as another user (uid %d)", cred.Uid)
	}
	if cred.Pid == 0 {
		return "it runs in a PID namespace this daemon cannot see"
	}
	for _, ns := range []string{"pid", "user"} {
		mine, err1 := os.Readlink("/proc/self/ns/" + ns)
		theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", cred.Pid, ns))
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("its %s namespace cannot be read", ns)
		}
		if mine != theirs {
			return fmt.Sprintf("it runs in another %s namespace (%s, a shadow tree's or a container's)", ns, theirs)
		}
	}
	return ""
}

// trustedServer says why the process listening at the other end of c is
// not this user's daemon ("" if it is): it must run as this user.
func trustedServer(c net.Conn) string {
	cred, err := peerCred(c)
	if err != nil {
		return "has credentials that cannot be read: " + err.Error()
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Sprintf("runs as another user (uid %d, pid %d)", cred.Uid, cred.Pid)
	}
	return ""
}
