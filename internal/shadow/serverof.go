package shadow

import "github.com/anvil-dev/anvil/internal/servers"

// serverOf returns which server checks a file, resolving each language
// once: the answer is the same for every file of a language, and
// resolving it stats the candidates' binaries and reads the project's
// TypeScript, for each of the up to thousands of files a check reaches.
// It is for one check's files: a later check resolves again.
func (v *Validator) serverOf() func(rel string) (*servers.Server, error) {
	type resolved struct {
		srv *servers.Server
		err error
	}
	byLanguage := map[string]resolved{}
	return func(rel string) (*servers.Server, error) {
		lang := servers.LanguageOf(rel)
		r, ok := byLanguage[lang]
		if !ok {
			r.srv, r.err = v.servers.ForFile(rel)
			byLanguage[lang] = r
		}
		return r.srv, r.err
	}
}
