package changeset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Parse reads a change-set document, {"changes": [Spec, ...]}, refusing
// anything Go's decoder would silently change or drop, since its contents
// become the user's files byte for byte: invalid UTF-8 or a lone UTF-16
// surrogate (both would become U+FFFD), a key given twice (the last would
// win), an unknown field, or data after the document.
func Parse(data []byte) ([]Spec, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("not valid UTF-8 at byte %d", invalidAt(data))
	}
	if err := checkEscapes(data); err != nil {
		return nil, err
	}
	if err := checkDuplicateKeys(data); err != nil {
		return nil, err
	}
	var doc struct {
		Changes []Spec `json:"changes"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data after the document at byte %d", dec.InputOffset())
	}
	if len(doc.Changes) == 0 {
		return nil, errors.New("no changes")
	}
	return doc.Changes, nil
}

func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// checkEscapes finds \u escapes that name half of a surrogate pair
// without the other half.
func checkEscapes(data []byte) error {
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(data):
			if data[i+1] != 'u' {
				i++
				continue
			}
			r, ok := hex4(data, i+2)
			if !ok {
				return fmt.Errorf("bad \\u escape at byte %d", i)
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xdc00:
				low, ok := hex4(data, i+8)
				if !ok || i+7 >= len(data) || data[i+6] != '\\' || data[i+7] != 'u' || low < 0xdc00 || low > 0xdfff {
					return fmt.Errorf("a lone UTF-16 surrogate (\\u%04x) at byte %d", r, i)
				}
				i += 11
			case utf16.IsSurrogate(r):
				return fmt.Errorf("a lone UTF-16 surrogate (\\u%04x) at byte %d", r, i)
			default:
				i += 5
			}
		}
	}
	return nil
}

func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(data[at:at+4]), 16, 32)
	return rune(v), err == nil
}

// checkDuplicateKeys walks the document's tokens and fails on an object
// that names a key twice.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				if seen[key] {
					return fmt.Errorf("the key %q appears twice in one object (at byte %d)", key, dec.InputOffset())
				}
				seen[key] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	return walk()
}
