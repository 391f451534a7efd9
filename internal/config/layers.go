package config

import "sort"

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
// user's, except [run] network, which only the user's file decides. A
// repository is not trusted to open the network to the code it runs:
// cloning one and asking Anvil about it must not be enough.
func (l Layers) Merged() Config {
	out := merge(l.User, l.Project)
	out.Run.Network = l.User.Run.Network
	return out
}

// ProjectWantsNetwork reports whether the project's file asks for the
// network, which [Layers.Merged] ignores: worth telling the user.
func (l Layers) ProjectWantsNetwork() bool { return l.Project.Run.Network && !l.User.Run.Network }

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
	case k.Get(l.Project) != "":
		s.Value, s.Source = k.Get(l.Project), SourceProject
	case k.Get(l.User) != "":
		s.Value, s.Source = k.Get(l.User), SourceUser
	default:
		s.Value, s.Source = k.Default, SourceDefault
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

// ServerNames returns the names of the [servers.NAME] tables either file
// defines, sorted.
func (l Layers) ServerNames() []string {
	var out []string
	for name := range l.Merged().Servers {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
