package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// GroupRun is the run stage's checks.
const GroupRun = "run"

// checkShadowTree reads the kernel settings that decide whether an
// unprivileged user may make shadow trees, then makes one for real: a
// change set in a copy-on-write view of a scratch directory, read back by
// a command inside, the directory untouched afterwards.
func checkShadowTree(ctx context.Context, host sandbox.HostPlaces) Check {
	c := Check{Group: GroupRun, Name: "shadow tree"}
	if reason, fix := usernsRefused(); reason != "" {
		c.Status, c.Detail, c.Fix = Warn, "the run stage ('anvil check --run') is unavailable: "+reason, fix
		return c
	}
	dir, err := os.MkdirTemp("", "anvil-doctor-shadow-")
	if err != nil {
		c.Status, c.Detail = Warn, err.Error()
		return c
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "probe.txt"), []byte("before\n"), 0o644); err != nil {
		c.Status, c.Detail = Warn, err.Error()
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	// Anvil's own probe in an empty directory of its own: the system's
	// PATH and nothing else of the host.
	res, err := sandbox.Run(ctx, sandbox.Spec{Root: dir, Seal: &sandbox.Seal{Env: []string{"PATH=/usr/bin:/bin"}, Host: host},
		Changes: []sandbox.Change{{Path: "probe.txt", Content: []byte("after\n")}},
		Argv:    []string{"sh", "-c", "cat probe.txt; echo x > written.txt"}})
	switch {
	case err != nil:
		c.Status, c.Detail = Warn, "the run stage ('anvil check --run') is unavailable: "+err.Error()
		if u, ok := err.(*sandbox.UnavailableError); ok {
			c.Fix = u.Fix
		}
		return c
	case res.ExitCode != 0 || strings.TrimSpace(string(res.Output)) != "after":
		c.Status, c.Detail = Warn, fmt.Sprintf("a trial shadow tree did not hold its change (exit %d): %s", res.ExitCode, strings.TrimSpace(string(res.Output)))
		return c
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "probe.txt")); string(b) != "before\n" {
		c.Status, c.Detail = Fail, "a trial shadow tree wrote through to the directory beneath it"
		return c
	}
	if _, err := os.Stat(filepath.Join(dir, "written.txt")); err == nil {
		c.Status, c.Detail = Fail, "a write in a trial shadow tree reached the directory beneath it"
		return c
	}
	if res.Mechanism == sandbox.MechanismCopy {
		c.Status = Warn
		c.Detail = fmt.Sprintf("overlayfs is refused here, so shadow trees are copies of the tree (a trial took %s; a large tree takes seconds)", res.Setup.Round(100*time.Microsecond))
		c.Fix = "a kernel of 5.11 or later mounts overlayfs in a user namespace"
		return c
	}
	c.Detail = fmt.Sprintf("overlayfs in a user namespace works: a trial tree was made in %s", res.Setup.Round(100*time.Microsecond))
	return c
}

// usernsRefused reads the settings that refuse unprivileged user
// namespaces, with what to change.
func usernsRefused() (reason, fix string) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	if os.Geteuid() == 0 {
		return "", "" // root needs none of them
	}
	if read("/proc/sys/user/max_user_namespaces") == "0" {
		return "user namespaces are disabled (user.max_user_namespaces = 0)", "sudo sysctl -w user.max_user_namespaces=15000"
	}
	if read("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)", "sudo sysctl -w kernel.unprivileged_userns_clone=1"
	}
	if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" {
		exe, _ := os.Executable()
		return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)",
			fmt.Sprintf("install an AppArmor profile that allows them for anvil, e.g. /etc/apparmor.d/anvil containing\n"+
				"  abi <abi/4.0>,\n  include <tunables/global>\n  profile anvil %s flags=(unconfined) {\n    userns,\n  }\n"+
				"then 'sudo apparmor_parser -r /etc/apparmor.d/anvil'", exe)
	}
	return "", ""
}
