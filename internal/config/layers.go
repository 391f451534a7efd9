package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Source says where a setting's effective value comes from.
type Source string

// Sources, from strongest to weakest.
const (
	SourceProject Source = "project"
	SourceUser    Source = "user"
	SourceDefault Source = "default"
)

// String returns the source's name.
func (s Source) String() string { return string(s) }

// Layers are the two config files read separately, so that a setting can
// be traced to the file that sets it. [Load] gives only the merged result.
type Layers struct {
	Paths   Paths
	User    Config
	Project Config
}

// ReadLayers reads both files of p.
func ReadLayers(p Paths) (Layers, error) {
	l := Layers{Paths: p}
	var err error
	if l.User, err = ReadFile(p.User); err != nil {
		return Layers{}, err
	}
	if l.Project, err = ReadFile(p.Project); err != nil {
		return Layers{}, err
	}
	return l, nil
}

// Merged returns the effective config: the project's values over the
// user's, except what a repository must not decide for whoever runs Anvil
// in it, which only the user's file sets ([Layers.Ignored]): cloning a
// repository and asking Anvil about it must not send the user's API key
// elsewhere (base_url), write outside the state directory (session_dir),
// open the network to the code it runs, hand it more of the user's
// environment or lift its bounds ([run] network, env, memory, tmp_size,
// processes, file_size), or start its own programs as the user
// ([servers] tables, the [check] command and [git], unless the user
// trusts the directory).
func (l Layers) Merged() Config {
	return merge(l.User, l.projectAllowed())
}

// projectAllowed is the project's file without what only the user's file
// may set.
func (l Layers) projectAllowed() Config {
	p := l.Project
	for _, k := range Keys() {
		if k.UserOnly {
			k.clear(&p)
		}
	}
	p.Run.Network = false
	p.Run.Env = nil
	p.Run.Memory, p.Run.TmpSize, p.Run.Processes, p.Run.FileSize = 0, 0, 0, 0
	if !l.Trusted() {
		p.Servers = nil
		p.Check = CheckConfig{}
		// Committing runs git with the repository's own configuration
		// (core.fsmonitor, hooks, filters): the repository may not turn
		// it on for itself.
		p.Git = GitConfig{}
	}
	return p
}

// Ignored names what the project's file sets that [Layers.Merged] leaves
// out: worth telling the user, with the way to allow it where there is one.
func (l Layers) Ignored() []string {
	p := l.Project
	var out []string
	for _, k := range Keys() {
		if k.UserOnly && k.Get(p) != "" {
			out = append(out, k.Name)
		}
	}
	// The tables, edited by hand, are not keys.
	if l.ProjectWantsNetwork() {
		out = append(out, "run.network")
	}
	if len(p.Run.Env) > 0 {
		out = append(out, "run.env")
	}
	for _, b := range []struct {
		name string
		set  bool
	}{{"run.memory", p.Run.Memory != 0}, {"run.tmp_size", p.Run.TmpSize != 0}, {"run.processes", p.Run.Processes != 0}, {"run.file_size", p.Run.FileSize != 0}} {
		if b.set {
			out = append(out, b.name)
		}
	}
	if !l.Trusted() {
		var names []string
		for name := range p.Servers {
			names = append(names, "servers."+name)
		}
		sort.Strings(names)
		out = append(out, names...)
		if p.Check.Command != "" {
			out = append(out, "check")
		}
		if p.Git != (GitConfig{}) {
			out = append(out, "git")
		}
	}
	return out
}

// IgnoredNotice is a line telling the user what the project's file sets
// that [Layers.Merged] leaves out, "" when nothing.
func (l Layers) IgnoredNotice() string {
	ignored := l.Ignored()
	if len(ignored) == 0 {
		return ""
	}
	return fmt.Sprintf("%s sets %s, which only your own config decides: ignored ('anvil doctor' says how to allow it)", ProjectFile, strings.Join(ignored, ", "))
}

// ProjectWantsNetwork reports whether the project's file asks for the
// network, which [Layers.Merged] ignores: worth telling the user.
func (l Layers) ProjectWantsNetwork() bool { return l.Project.Run.Network && !l.User.Run.Network }

// Trusted reports whether the user's file lists the project's workspace in
// trusted_projects, so that the project's [servers] tables count. The
// paths are compared with their symbolic links resolved.
func (l Layers) Trusted() bool {
	if l.Paths.Project == "" {
		return false
	}
	dir := realPath(filepath.Dir(filepath.Dir(l.Paths.Project)))
	for _, t := range l.User.TrustedProjects {
		if filepath.IsAbs(t) && realPath(t) == dir {
			return true
		}
	}
	return false
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// Setting is a key's effective value and where it comes from.
type Setting struct {
	Key         string `json:"key"`
	Value       string `json:"value"` // "" when unset and without a default
	Source      Source `json:"source"`
	Description string `json:"description"`
}

// Setting returns the effective value of k: the project's if it sets k,
// else the user's, else the default.
func (l Layers) Setting(k Key) Setting {
	s := Setting{Key: k.Name, Description: k.Description}
	switch {
	case k.Get(l.Project) != "" && !k.UserOnly:
		s.Value, s.Source = k.Get(l.Project), SourceProject
	case k.Get(l.User) != "":
		s.Value, s.Source = k.Get(l.User), SourceUser
	default:
		s.Value, s.Source = k.Default, SourceDefault
		if k.defaultIn != nil {
			s.Value = k.defaultIn(l.Paths)
		}
	}
	return s
}

// Settings returns the setting of every key, in [Keys] order.
func (l Layers) Settings() []Setting {
	var out []Setting
	for _, k := range Keys() {
		out = append(out, l.Setting(k))
	}
	return out
}

// ServerNames returns the names of the [servers.NAME] tables in effect
// (the user's, and the project's when it is trusted), sorted.
func (l Layers) ServerNames() []string {
	var out []string
	for name := range l.Merged().Servers {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
