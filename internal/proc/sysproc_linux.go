package proc

import (
	"errors"
	"os"
	"syscall"
)

// namespaces: Linux has PID namespaces, though a given kernel or sandbox
// may refuse them (see [namespaceRefused]).
const namespaces = true

// sysProcAttr returns the attributes for a process isolated as iso. Both
// kinds lead a process group and get SIGKILL when Anvil's thread that
// started them dies; Go never retires an OS thread that is not locked, so
// in practice that is when Anvil dies.
//
// A PID namespace needs no privilege as root; as another user it comes
// with a user namespace mapping that user to itself, so files keep their
// owners and permissions inside.
func sysProcAttr(iso Isolation) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if iso != PIDNamespace {
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWPID
	if os.Geteuid() != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return a
}

// namespaceRefused reports whether starting in a PID namespace failed
// because the kernel does not allow it here (user namespaces disabled by
// sysctl or AppArmor, a sandbox without CLONE_NEWPID), so that the start
// should be retried without one.
func namespaceRefused(err error) bool {
	return errors.Is(err, errNoNamespaces) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EUSERS)
}
