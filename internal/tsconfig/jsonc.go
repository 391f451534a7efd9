package tsconfig

// StripJSONC turns JSON with comments and trailing commas, as
// tsconfig.json files are written, into plain JSON. Comments become
// spaces (keeping offsets) and a comma before a closing bracket is
// dropped; strings are left alone.
func StripJSONC(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				out = append(out, ' ')
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			out = append(out, ' ', ' ')
			i += 2
			for i < len(data) && !(data[i] == '*' && i+1 < len(data) && data[i+1] == '/') {
				if data[i] == '\n' {
					out = append(out, '\n')
				} else {
					out = append(out, ' ')
				}
				i++
			}
			if i < len(data) {
				out = append(out, ' ', ' ')
				i++
			}
		case c == ']' || c == '}':
			// Drop a trailing comma: the last non-space byte written.
			for j := len(out) - 1; j >= 0; j-- {
				if b := out[j]; b == ' ' || b == '\t' || b == '\n' || b == '\r' {
					continue
				} else if b == ',' {
					out[j] = ' '
				}
				break
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
