package proc

// Containment keeps a long-lived process Anvil starts on the host (a
// language server, tsserver) from the places it must never read: a
// server follows includes, imports and links wherever they point, so a
// workspace's `include/k.h` linking to `~/.ssh/id_rsa` would otherwise
// put the key's first line into a diagnostic the model reads.
//
// The process starts as [Containment.Helper] (the anvil binary) in a
// mount namespace of its own; the helper ([Main]) covers each hidden
// place there, drops the capabilities that could uncover them and
// executes the real program, which keeps the process's pipes, PID and
// parent-death signal. What to hide is the execution policy's decision
// (internal/execpolicy); this package only carries it out.
type Containment struct {
	// Helper is the executable that calls [Main] first thing (the anvil
	// binary, or a test binary whose TestMain does).
	Helper string
	// Hidden are absolute places the process must not see: each is an
	// empty, unreadable directory or file inside.
	Hidden []string
	// Home, when set, is covered whole: the process finds there an empty,
	// read-only directory of its own with only Shown and Caches put back
	// as they are. An allow list: a secret the home holds that no list
	// names (~/.config/app/token, ~/notes) is not there to be read.
	Home string
	// Shown are the places inside Home the process needs (the
	// workspace, the toolchains, Anvil's tools).
	Shown []string
	// Caches are the places inside Home the process writes (the go
	// command's build cache): each is made when missing, then shown.
	Caches []string
	// ReadOnly are places, wherever they lie, the process reads and
	// must not write (the workspace: the user's tree is written by a
	// clean commit alone).
	ReadOnly []string
}

// containEnv names, in the helper's environment, its job (JSON); the
// real program's environment travels inside it.
const containEnv = "ANVIL_CONTAIN_SPEC"

// containSpec is what the helper is handed.
type containSpec struct {
	// Path is the program, found as an uncontained start finds it; Argv
	// its arguments, the first as the starter named it.
	Path     string   `json:"path"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env"`
	Hidden   []string `json:"hidden"`
	Home     string   `json:"home,omitempty"`
	Shown    []string `json:"shown,omitempty"`
	Caches   []string `json:"caches,omitempty"`
	ReadOnly []string `json:"read_only,omitempty"`
	// ParentMounts identifies the starter's mount namespace: a helper
	// still in it (the kernel refused a namespace of its own) must not
	// mount anything, which would change the host's view.
	ParentMounts string `json:"parent_mounts"`
	// Nice is the priority the program runs at (Spec.Background), set
	// by the thread that executes it: a priority is a thread's on Linux,
	// and one set on the process from outside misses the threads it has
	// started already.
	Nice int `json:"nice,omitempty"`
}

// ContainFailed is the helper's exit status when it could not hide what
// it was asked to; its standard error says why.
const ContainFailed = 126
