package workspace

import "bytes"

// sniffLen is how much of a file is inspected to decide whether it is binary;
// git and ripgrep look at a similar prefix.
const sniffLen = 8000

// IsBinary reports whether data looks like a binary file: a NUL byte in its
// first few kilobytes. It is the same test git uses, and it keeps text
// encodings such as UTF-8 and Latin-1 on the text side.
func IsBinary(data []byte) bool {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	return bytes.IndexByte(data, 0) >= 0
}
