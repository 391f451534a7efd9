package workspace

import "bytes"

// SniffLen is how much of a file [IsBinary] inspects, so a caller testing a
// file need read no more of it; git and ripgrep look at a similar prefix.
const SniffLen = 8000

// IsBinary reports whether data looks like a binary file: a NUL byte in its
// first few kilobytes. It is the same test git uses, and it keeps text
// encodings such as UTF-8 and Latin-1 on the text side.
func IsBinary(data []byte) bool {
	if len(data) > SniffLen {
		data = data[:SniffLen]
	}
	return bytes.IndexByte(data, 0) >= 0
}
