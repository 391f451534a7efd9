package search

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file picks fields out of rg's JSON messages without decoding them
// whole: a match message lists every submatch of its line, and one line can
// be megabytes long.

// dataField decodes the data field name ("path" or "lines") of a message,
// as far as msg holds it: complete is false when msg was cut short. rg
// writes bytes that are not UTF-8 as base64 under "bytes", others as a
// string under "text".
func dataField(msg []byte, name string) (value []byte, complete bool) {
	for _, enc := range [...]string{"text", "bytes"} {
		key := `"` + name + `":{"` + enc + `":"`
		i := bytes.Index(msg, []byte(key))
		if i < 0 {
			continue
		}
		body := msg[i+len(key):]
		j := 0 // end of the string, or of the last whole escape before the cut
		for j < len(body) && body[j] != '"' {
			step := 1
			if body[j] == '\\' {
				step = 2
				if j+1 < len(body) && body[j+1] == 'u' {
					step = 6
				}
			}
			if j+step > len(body) {
				break
			}
			j += step
		}
		complete = j < len(body) && body[j] == '"'
		if enc == "bytes" {
			raw := body[:j/4*4]
			out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
			n, err := base64.StdEncoding.Decode(out, raw)
			return out[:n], complete && err == nil
		}
		out, ok := unescapeJSON(body[:j])
		return out, complete && ok
	}
	return nil, false
}

// unescapeJSON decodes the body of a JSON string, without its quotes, into
// a new slice. ok is false if an escape is malformed.
func unescapeJSON(s []byte) (out []byte, ok bool) {
	if bytes.IndexByte(s, '\\') < 0 {
		return bytes.Clone(s), true
	}
	out = make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i == len(s) {
			return out, false
		}
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s[i+1:])
			if !ok {
				return out, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s[min(i+3, len(s)):]); ok && bytes.HasPrefix(s[i+1:], []byte(`\u`)) {
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return out, false
		}
	}
	return out, true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s[:4]), 16, 32)
	return rune(n), err == nil
}

// lineKeys are the keys whose numbers lineFields and keyScan read, in the
// order rg prints them: the line number, then the first submatch's start.
// Neither can occur inside a JSON string, where every quote is escaped, so
// the first occurrence of each is the field.
var lineKeys = [...]string{`"line_number":`, `"start":`}

// lineFields returns the numbers after the lineKeys in a complete message.
func lineFields(line []byte) []int {
	var vals []int
	for _, key := range lineKeys {
		i := bytes.Index(line, []byte(key))
		if i < 0 {
			break
		}
		line = line[i+len(key):]
		n, digits := 0, 0
		for digits < len(line) && line[digits] >= '0' && line[digits] <= '9' {
			n = n*10 + int(line[digits]-'0')
			digits++
		}
		if digits == 0 {
			break
		}
		vals = append(vals, n)
	}
	return vals
}

// keyScan is lineFields for a message read in pieces, too long to hold.
type keyScan struct {
	k       int // index of the key sought
	matched int // bytes of it matched so far
	inNum   bool
	num     int
	vals    []int
}

func (ks *keyScan) feed(p []byte) {
	for _, c := range p {
		if ks.k >= len(lineKeys) {
			return
		}
		if ks.inNum {
			if c >= '0' && c <= '9' {
				ks.num = ks.num*10 + int(c-'0')
				continue
			}
			ks.vals = append(ks.vals, ks.num)
			ks.k, ks.matched, ks.num, ks.inNum = ks.k+1, 0, 0, false
			continue
		}
		key := lineKeys[ks.k]
		switch {
		case c == key[ks.matched]:
			ks.matched++
			ks.inNum = ks.matched == len(key)
		case c == '"':
			ks.matched = 1 // each key has quotes only at its ends
		default:
			ks.matched = 0
		}
	}
}
