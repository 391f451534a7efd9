package hooks

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// sweepEvery bounds how often the blobs are swept. A sweep reads every
// manifest whole (megabytes each for a large tree, and the manifests of
// resumable sessions are never pruned), so it is not a cost each new
// session pays: a blob no manifest names any more stays until the next.
const sweepEvery = time.Hour

// sharedRecordTTL is how long a snapshot whose record other sessions
// share stays unused: the record's being there does not say the session
// can still be resumed.
const sharedRecordTTL = 90 * 24 * time.Hour

// prune removes manifests unused past snapTTL or past maxSessions (the
// least recently used first), never the session's own nor one whose
// client can still resume it; then, where it removed any and no sweep
// ran within sweepEvery, the blobs no manifest or pending list names.
// The manifests within the bounds are not read.
func (s *Store) prune(root *workspace.Root, session string) {
	dir := filepath.Join(s.dir, "sessions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type manifest struct {
		path string
		mod  time.Time
	}
	var ms []manifest
	removed := false
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue
		}
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasSuffix(e.Name(), ".lock"):
			// A lock's time does not move while it is held: one whose
			// file (a manifest, a pending list) is still there may be in
			// use, and a new file in its place would be a second lock.
			owner := strings.TrimSuffix(p, ".lock")
			if _, err := os.Stat(owner); errors.Is(err, fs.ErrNotExist) && s.clock().Sub(info.ModTime()) > snapTTL {
				os.Remove(p)
			}
		case strings.HasSuffix(e.Name(), ".pending"):
			// Contents kept before an edit the post-edit hook checks.
			if s.clock().Sub(info.ModTime()) > snapTTL {
				removed = os.Remove(p) == nil || removed
			}
		case strings.HasSuffix(e.Name(), ".json"):
			ms = append(ms, manifest{p, info.ModTime()})
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].mod.After(ms[j].mod) })
	own := s.manifest(root, session)
	kept := 0
	var past []manifest
	records := map[string]string{} // manifest → its session's record
	shares := map[string]int{}     // record → the manifests past the bounds that name it
	for _, m := range ms {
		switch {
		case m.path == own:
		case kept < maxSessions && s.clock().Sub(m.mod) <= snapTTL:
			kept++
		default:
			record, err := manifestRecord(m.path)
			if err != nil {
				continue // a manifest that cannot be read now may be later, and stays
			}
			past = append(past, m)
			records[m.path] = record
			shares[record]++
		}
	}
	for _, m := range past {
		// A session its client can still resume is never pruned: the
		// client's own retention bounds how many there are. A record
		// several sessions name (OpenCode's one database of them all)
		// says nothing of any one: such a session stays sharedRecordTTL.
		record := records[m.path]
		if resumable(record) && (shares[record] == 1 || s.clock().Sub(m.mod) <= sharedRecordTTL) {
			continue
		}
		removed = os.Remove(m.path) == nil || removed
	}
	if removed {
		s.sweepBlobs()
	}
}

// sweepBlobs removes the blobs no manifest or pending list names, unless
// a sweep ran within sweepEvery.
func (s *Store) sweepBlobs() {
	stamp := filepath.Join(s.dir, "swept")
	if info, err := os.Stat(stamp); err == nil {
		// A stamp from the future (the clock set back) is no sweep.
		if since := s.clock().Sub(info.ModTime()); since >= 0 && since < sweepEvery {
			return
		}
	}
	used, ok := s.blobsInUse()
	if !ok {
		return // unsure what is in use: keep every blob
	}
	blobs, err := os.ReadDir(filepath.Join(s.dir, "blobs"))
	if err != nil {
		return
	}
	for _, b := range blobs {
		// A blob written or touched within sweepEvery may belong to a
		// snapshot being taken right now, whose manifest is not written
		// yet (a walk of a large tree and its packages takes a while).
		if info, err := b.Info(); err == nil && !used[b.Name()] && s.clock().Sub(info.ModTime()) > sweepEvery {
			os.Remove(filepath.Join(s.dir, "blobs", b.Name()))
		}
	}
	if err := writeAtomic(stamp, nil, false); err == nil {
		now := s.clock()
		_ = os.Chtimes(stamp, now, now)
	}
}

// blobsInUse returns every blob a manifest or a pending list names; ok
// is false when one could not be read.
func (s *Store) blobsInUse() (used map[string]bool, ok bool) {
	dir := filepath.Join(s.dir, "sessions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	used = map[string]bool{}
	for _, e := range ents {
		var hashes map[string]string
		switch {
		case strings.HasSuffix(e.Name(), ".pending"):
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, false
			}
			_ = json.Unmarshal(data, &hashes)
		case strings.HasSuffix(e.Name(), ".json"):
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if errors.Is(err, fs.ErrNotExist) {
				continue // pruned by another hook meanwhile
			}
			if err != nil {
				return nil, false
			}
			var snap Snapshot
			if json.Unmarshal(data, &snap) != nil {
				continue
			}
			hashes = snap.Files
		}
		for _, h := range hashes {
			used[h] = true
		}
	}
	return used, true
}

// manifestRecord reads a manifest's record of the session (Transcript)
// from its head, where it is written before the files: a manifest of a
// large tree is megabytes, and the manifests of resumable sessions are
// read at each prune. A manifest whose head does not say is read whole;
// err is set only when the manifest cannot be read.
func manifestRecord(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, 64<<10))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		if key == "transcript" {
			var v string
			if dec.Decode(&v) != nil {
				break
			}
			return v, nil
		}
		if key == "files" {
			break // the store writes the record before the files: none here, unless another writer put it after
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var snap struct {
		Transcript string `json:"transcript"`
	}
	_ = json.Unmarshal(data, &snap)
	return snap.Transcript, nil
}

// resumable reports whether the client's record of a session is still
// there, so that the client can resume it.
func resumable(transcript string) bool {
	if !filepath.IsAbs(transcript) {
		return false
	}
	info, err := os.Stat(transcript)
	return err == nil && info.Mode().IsRegular()
}
