package proc

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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
//
// A contained process also gets a mount namespace of its own, where its
// helper covers what it must not see.
func sysProcAttr(iso Isolation, contained bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if iso != PIDNamespace {
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWPID
	if contained {
		a.Cloneflags |= syscall.CLONE_NEWNS
	}
	if os.Geteuid() != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
		if contained {
			// The helper (not root in the namespace) must keep the
			// right to mount across its exec; it drops it again
			// before the program's.
			a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		}
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
