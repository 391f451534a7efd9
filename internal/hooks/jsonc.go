package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
)

// node is a JSON value of a settings file with where it is in the text,
// so that Anvil's entries are added and removed by editing the text
// around them: the user's formatting, order and comments stay as they
// were written.
type node struct {
	kind       byte // '{', '[', '"', or 'v' (a number, true, false, null)
	start, end int  // [start, end) in the text
	members    []member
	elems      []*node
}

// member is one key of an object.
type member struct {
	key   string
	start int // where the key starts
	val   *node
}

// get returns the value of key in an object.
func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// parser reads JSON, and with comments set JSONC: // and /* */ comments
// and a trailing comma, as the clients whose settings are commented JSON
// read them.
type parser struct {
	s        []byte
	i        int
	comments bool
	depth    int
}

// maxDepth bounds nesting: a settings file is shallow, and a file of
// ten thousand brackets is no reason to grow the stack.
const maxDepth = 256

// parseJSONC parses text as one JSON value (JSONC when comments is set)
// with nothing but blanks and comments around it.
func parseJSONC(text []byte, comments bool) (*node, error) {
	p := &parser{s: text, comments: comments}
	if err := p.skip(); err != nil {
		return nil, err
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.i != len(p.s) {
		return nil, p.errorf("data after the JSON value")
	}
	return n, nil
}

func (p *parser) errorf(format string, args ...any) error {
	line := 1
	for _, c := range p.s[:min(p.i, len(p.s))] {
		if c == '\n' {
			line++
		}
	}
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// skip passes blanks, and comments when they are allowed.
func (p *parser) skip() error {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.s) && (p.s[p.i+1] == '/' || p.s[p.i+1] == '*'):
			if !p.comments {
				return p.errorf("a comment, which this client's settings do not allow")
			}
			if p.s[p.i+1] == '/' {
				for p.i < len(p.s) && p.s[p.i] != '\n' {
					p.i++
				}
				continue
			}
			end := -1
			for j := p.i + 2; j+1 < len(p.s); j++ {
				if p.s[j] == '*' && p.s[j+1] == '/' {
					end = j + 2
					break
				}
			}
			if end < 0 {
				return p.errorf("an unterminated comment")
			}
			p.i = end
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value() (*node, error) {
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of the file")
	}
	switch c := p.s[p.i]; c {
	case '{', '[':
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, p.errorf("nested more than %d deep", maxDepth)
		}
		if c == '{' {
			return p.object()
		}
		return p.array()
	case '"':
		start := p.i
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &node{kind: '"', start: start, end: p.i}, nil
	}
	start := p.i
	for p.i < len(p.s) && !isDelim(p.s[p.i]) {
		p.i++
	}
	var v any
	if p.i == start || json.Unmarshal(p.s[start:p.i], &v) != nil {
		return nil, p.errorf("not a JSON value: %q", p.s[start:max(p.i, min(start+1, len(p.s)))])
	}
	return &node{kind: 'v', start: start, end: p.i}, nil
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}', ':', '/', '{', '[', '"':
		return true
	}
	return false
}

// str reads a string literal and returns its value.
func (p *parser) str() (string, error) {
	start := p.i
	p.i++ // the opening quote
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			var s string
			if err := json.Unmarshal(p.s[start:p.i], &s); err != nil {
				return "", p.errorf("a malformed string")
			}
			return s, nil
		case '\n':
			return "", p.errorf("a string that runs past its line")
		}
		p.i++
	}
	return "", p.errorf("an unterminated string")
}

func (p *parser) object() (*node, error) {
	n := &node{kind: '{', start: p.i}
	p.i++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			if len(n.members) > 0 && !p.comments && p.s[p.lastNonBlank()] == ',' {
				return nil, p.errorf("a trailing comma")
			}
			p.i++
			n.end = p.i
			return n, nil
		}
		if len(n.members) > 0 {
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return nil, p.errorf("expected ',' or '}'")
			}
			p.i++
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				continue // a trailing comma (JSONC); checked above
			}
		}
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.errorf("expected a key")
		}
		start := p.i
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("expected ':' after %q", key)
		}
		p.i++
		if err := p.skip(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, start: start, val: v})
	}
}

func (p *parser) array() (*node, error) {
	n := &node{kind: '[', start: p.i}
	p.i++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			if len(n.elems) > 0 && !p.comments && p.s[p.lastNonBlank()] == ',' {
				return nil, p.errorf("a trailing comma")
			}
			p.i++
			n.end = p.i
			return n, nil
		}
		if len(n.elems) > 0 {
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return nil, p.errorf("expected ',' or ']'")
			}
			p.i++
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				continue
			}
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
	}
}

// lastNonBlank is the index of the last non-blank byte before p.i.
func (p *parser) lastNonBlank() int {
	j := p.i - 1
	for j > 0 && (p.s[j] == ' ' || p.s[j] == '\t' || p.s[j] == '\n' || p.s[j] == '\r') {
		j--
	}
	return j
}

// errNotObject is a settings file whose value is not an object.
var errNotObject = errors.New("not a JSON object")
