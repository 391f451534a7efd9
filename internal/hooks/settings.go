package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Anvil's entries are added to and removed from a client's settings by
// editing the text around them, never by rewriting the file: the user's
// keys, order, indentation and comments stay byte for byte, and
// uninstalling gives back the file as it was before the install. An
// entry is added at the end of its list (after the last element, with a
// comma, on a line of its own indented as its neighbours are, or inline
// in a file written on one line); removing one deletes exactly that span
// (from the end of the element before it), and a list or hooks object
// left empty goes with it.

// settings is a client's parsed settings file.
type settings struct {
	text  []byte
	root  *node
	jsonc bool
}

func parseSettings(text []byte, jsonc bool) (*settings, error) {
	s := &settings{text: text, jsonc: jsonc}
	if len(bytes.TrimSpace(text)) == 0 {
		return s, nil
	}
	root, err := parseJSONC(text, jsonc)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, errNotObject
	}
	s.root = root
	if h := root.get("hooks"); h != nil && h.kind != '{' {
		return nil, fmt.Errorf("the settings' \"hooks\" is not an object")
	}
	return s, nil
}

// span is the text of a node.
func (s *settings) span(n *node) []byte { return s.text[n.start:n.end] }

// value decodes a node (comments dropped) into v.
func (s *settings) value(n *node, v any) error {
	return json.Unmarshal(plain(s.text, n), v)
}

// plain is a node's value as JSON without comments or trailing commas.
func plain(text []byte, n *node) []byte {
	var b bytes.Buffer
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(m.key)
			b.Write(k)
			b.WriteByte(':')
			b.Write(plain(text, m.val))
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(plain(text, e))
		}
		b.WriteByte(']')
	default:
		b.Write(text[n.start:n.end])
	}
	return b.Bytes()
}

// anvilHandler is one of Anvil's hook handlers found in the settings:
// the event, its group's index in the event's list, the handler's index
// in the group.
type anvilHandler struct {
	event        string
	group, index int
	command      string
}

// handlerList returns a group's list of handlers ("hooks").
func handlerList(group *node) *node {
	if h := group.get("hooks"); h != nil && h.kind == '[' {
		return h
	}
	return nil
}

// anvilHandlers lists Anvil's handlers, in the file's order.
func (s *settings) anvilHandlers() []anvilHandler {
	var out []anvilHandler
	hooks := s.root.get("hooks")
	if hooks == nil {
		return nil
	}
	for _, m := range hooks.members {
		if m.val.kind != '[' {
			continue
		}
		for gi, g := range m.val.elems {
			hs := handlerList(g)
			if hs == nil {
				continue
			}
			for hi, h := range hs.elems {
				var v struct {
					Command string `json:"command"`
				}
				if h.kind == '{' && s.value(h, &v) == nil && IsAnvilCommand(v.Command) {
					out = append(out, anvilHandler{m.key, gi, hi, v.Command})
				}
			}
		}
	}
	return out
}

// wantedGroups is each event's group of Anvil's, as the install writes
// it, in the order of the client's entries.
func wantedGroups(c Client, bin string) (events []string, groups map[string]any) {
	groups = map[string]any{}
	for _, e := range entries(c) {
		h := handler{Type: "command", Command: Command(bin, e.verb, c), Timeout: e.timeout(c)}
		if c == Gemini {
			h.Name = "anvil-" + e.verb
		}
		group := orderedGroup{Matcher: e.matcher, Hooks: []handler{h}}
		events = append(events, e.event)
		groups[e.event] = group
	}
	return events, groups
}

// orderedGroup is a group as Anvil writes it: its matcher, then its
// handlers.
type orderedGroup struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// handler is a hook entry's command, as the clients read it (Gemini CLI
// also names it).
type handler struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// installedAsWanted reports whether the settings hold exactly Anvil's
// wanted entries: each event's group once, as Install writes it, and no
// other handler of Anvil's.
func (s *settings) installedAsWanted(c Client, bin string) bool {
	found := s.anvilHandlers()
	events, groups := wantedGroups(c, bin)
	if len(found) != len(events) {
		return false
	}
	hooks := s.root.get("hooks")
	for _, f := range found {
		want, ok := groups[f.event]
		if !ok {
			return false
		}
		delete(groups, f.event)
		g := hooks.get(f.event).elems[f.group]
		var got, wantV any
		wb, _ := marshalRaw(want)
		_ = json.Unmarshal(wb, &wantV)
		if s.value(g, &got) != nil || !jsonEqual(got, wantV) {
			return false
		}
	}
	return len(groups) == 0
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Install returns settings (a client's settings file; empty for none)
// with Anvil's entries for client c, running bin. Settings that already
// hold exactly these entries come back as they are; entries of an
// earlier install (another binary, another version) are replaced;
// everything else stays byte for byte. For a client whose hooks are a
// file of Anvil's own, the text is that file.
func Install(text []byte, c Client, bin string) ([]byte, error) {
	if c.ownFile() {
		return installOwn(text, c, bin)
	}
	s, err := parseSettings(text, c.jsonc())
	if err != nil {
		return nil, err
	}
	if s.root != nil && s.installedAsWanted(c, bin) {
		return text, nil
	}
	if s.root != nil {
		if text, err = Uninstall(text, c); err != nil {
			return nil, err
		}
	}
	events, groups := wantedGroups(c, bin)
	if len(bytes.TrimSpace(text)) == 0 {
		hooks := newOrdered()
		for _, e := range events {
			hooks.add(e, []any{groups[e]})
		}
		root := newOrdered()
		root.add("hooks", hooks)
		return root.indented()
	}
	for _, e := range events {
		if s, err = parseSettings(text, c.jsonc()); err != nil {
			return nil, err
		}
		hooks := s.root.get("hooks")
		switch {
		case hooks == nil:
			obj := newOrdered()
			obj.add(e, []any{groups[e]})
			text = s.insertMember(s.root, "hooks", obj)
		case hooks.get(e) == nil:
			text = s.insertMember(hooks, e, []any{groups[e]})
		case hooks.get(e).kind != '[':
			return nil, fmt.Errorf("hooks.%s is not a list", e)
		default:
			text = s.insertElem(hooks.get(e), groups[e])
		}
	}
	return text, nil
}

// Uninstall returns settings without Anvil's entries; the user's own
// hooks and every other key stay as written. Settings without Anvil's
// entries come back as they are.
func Uninstall(text []byte, c Client) ([]byte, error) {
	if c.ownFile() {
		return uninstallOwn(text, c)
	}
	for {
		s, err := parseSettings(text, c.jsonc())
		if err != nil {
			return nil, err
		}
		if s.root == nil {
			return text, nil
		}
		found := s.anvilHandlers()
		if len(found) == 0 {
			return text, nil
		}
		text = s.removeHandler(found[len(found)-1])
	}
}

// removeHandler removes one handler; a group left without handlers, an
// event left without groups and a hooks object left without events go
// with it.
func (s *settings) removeHandler(f anvilHandler) []byte {
	hooks := s.root.get("hooks")
	list := hooks.get(f.event)
	group := list.elems[f.group]
	hs := handlerList(group)
	switch {
	case len(hs.elems) > 1:
		return s.removeItem(hs, f.index)
	case len(list.elems) > 1:
		return s.removeItem(list, f.group)
	case len(hooks.members) > 1:
		return s.removeItem(hooks, slices.IndexFunc(hooks.members, func(m member) bool { return m.key == f.event }))
	}
	return s.removeItem(s.root, slices.IndexFunc(s.root.members, func(m member) bool { return m.key == "hooks" }))
}

// items are the spans of a container's elements (an object's members
// from their key).
func items(n *node) [][2]int {
	var out [][2]int
	for _, m := range n.members {
		out = append(out, [2]int{m.start, m.val.end})
	}
	for _, e := range n.elems {
		out = append(out, [2]int{e.start, e.end})
	}
	return out
}

// removeItem deletes item i of a container with the separator that joins
// it to its neighbours: from the end of the one before (the inverse of
// insertItem), from its start to the next one's for the first, and the
// whole inside of a container it is alone in.
func (s *settings) removeItem(n *node, i int) []byte {
	its := items(n)
	from, to := n.start+1, n.end-1
	switch {
	case len(its) == 1:
	case i > 0:
		from, to = its[i-1][1], its[i][1]
	default:
		from, to = its[0][0], its[1][0]
	}
	return splice(s.text, from, to, nil)
}

func (s *settings) insertMember(n *node, key string, v any) []byte {
	k, _ := marshalRaw(key)
	return s.insertItem(n, func(indent string, inline bool) []byte {
		return append(append(k, ": "...), s.render(v, indent, inline)...)
	})
}

func (s *settings) insertElem(n *node, v any) []byte {
	return s.insertItem(n, func(indent string, inline bool) []byte { return s.render(v, indent, inline) })
}

// insertItem adds an item at the end of a container, after its last
// one, formatted as its neighbours are.
func (s *settings) insertItem(n *node, item func(indent string, inline bool) []byte) []byte {
	its := items(n)
	if len(its) == 0 {
		if !s.multiline() {
			return splice(s.text, n.start+1, n.end-1, item("", true))
		}
		outer := lineIndent(s.text, n.start)
		inner := outer + s.indentUnit()
		ins := append([]byte("\n"+inner), item(inner, false)...)
		ins = append(ins, "\n"+outer...)
		return splice(s.text, n.start+1, n.end-1, ins)
	}
	last := its[len(its)-1]
	if !bytes.Contains(s.text[n.start:its[0][0]], []byte("\n")) {
		sep := ","
		if len(its) > 1 && bytes.HasPrefix(s.text[its[0][1]:], []byte(", ")) {
			sep = ", "
		}
		return splice(s.text, last[1], last[1], append([]byte(sep), item("", true)...))
	}
	indent := lineIndent(s.text, last[0])
	ins := append([]byte(",\n"+indent), item(indent, false)...)
	return splice(s.text, last[1], last[1], ins)
}

// render writes v indented from indent, or on one line inline.
func (s *settings) render(v any, indent string, inline bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !inline {
		enc.SetIndent(indent, s.indentUnit())
	}
	_ = enc.Encode(v) // strings, handlers and ordered objects only
	return bytes.TrimRight(b.Bytes(), "\n")
}

// multiline reports whether the settings' object spans lines (an empty
// one is written as the clients write theirs, a key a line).
func (s *settings) multiline() bool {
	return len(s.root.members) == 0 || bytes.Contains(s.text[s.root.start:s.root.end], []byte("\n"))
}

// indentUnit is the file's indentation step: the indent of the root's
// first member, else two spaces.
func (s *settings) indentUnit() string {
	if its := items(s.root); len(its) > 0 {
		if ind := lineIndent(s.text, its[0][0]); ind != "" && ind != lineIndent(s.text, s.root.start) {
			return strings.TrimPrefix(ind, lineIndent(s.text, s.root.start))
		}
	}
	return "  "
}

// lineIndent is the blanks that begin the line holding pos.
func lineIndent(text []byte, pos int) string {
	start := bytes.LastIndexByte(text[:pos], '\n') + 1
	end := start
	for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
		end++
	}
	return string(text[start:end])
}

func splice(text []byte, from, to int, ins []byte) []byte {
	out := make([]byte, 0, len(text)-(to-from)+len(ins))
	out = append(out, text[:from]...)
	out = append(out, ins...)
	return append(out, text[to:]...)
}

// Installed returns the commands of Anvil's entries in settings.
func Installed(text []byte, c Client) ([]string, error) {
	if c.ownFile() {
		return installedOwn(text, c)
	}
	s, err := parseSettings(text, c.jsonc())
	if err != nil || s.root == nil {
		return nil, err
	}
	var cmds []string
	for _, f := range s.anvilHandlers() {
		if !slices.Contains(cmds, f.command) {
			cmds = append(cmds, f.command)
		}
	}
	return cmds, nil
}

// ordered is a JSON object that keeps its keys in the order added.
type ordered struct {
	keys []string
	vals map[string]any
}

func newOrdered() *ordered { return &ordered{vals: map[string]any{}} }

func (o *ordered) add(k string, v any) {
	o.keys = append(o.keys, k)
	o.vals[k] = v
}

// MarshalJSON writes the keys in order.
func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := marshalRaw(k)
		vb, err := marshalRaw(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// indented writes the object as the clients write their settings
// (two-space indent, a final newline).
func (o *ordered) indented() ([]byte, error) {
	raw, err := marshalRaw(o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// marshalRaw encodes v without HTML escaping (a command's "&&" stays
// readable in the user's settings).
func marshalRaw(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
