package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// A manifest's record of the session is read from its head, whatever
// follows; a manifest that names it after its files, or none, is read
// whole.
func TestManifestRecord(t *testing.T) {
	files := map[string]string{}
	for i := range 5000 {
		files[filepath.Join("src", string(rune('a'+i%26)), time.Duration(i).String()+".ts")] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	}
	whole, _ := json.Marshal(Snapshot{Workspace: "/w", Session: "s", Transcript: "/t.jsonl", Files: files})
	none, _ := json.Marshal(Snapshot{Workspace: "/w", Session: "s", Files: files})
	for _, tc := range []struct {
		name, text, want string
	}{
		{"written by the store", string(whole), "/t.jsonl"},
		{"none", string(none), ""},
		{"after the files", `{"files": {"a.ts": "x"}, "transcript": "/late.jsonl"}`, "/late.jsonl"},
		{"not JSON", `not json`, ""},
		{"cut short", string(whole[:100]), "/t.jsonl"},
		{"empty", ``, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "m.json")
			if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			if got, err := manifestRecord(p); err != nil || got != tc.want {
				t.Errorf("manifestRecord = %q, want %q", got, tc.want)
			}
		})
	}
}

// Whatever a manifest file holds, reading its record neither panics nor
// disagrees with reading the manifest whole where the whole reads. (A
// key given twice, which the store never writes, reads as its first
// from the head and as its last whole.)
func FuzzManifestRecord(f *testing.F) {
	f.Add([]byte(`{"workspace": "/w", "transcript": "/t", "files": {}}`))
	f.Add([]byte(`{"files": {"a": "b"}, "transcript": "/late"}`))
	f.Add([]byte(`{"transcript": 3}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := manifestRecord(p)
		if err != nil {
			t.Fatal(err)
		}
		var snap Snapshot
		if bytes.Count(bytes.ToLower(data), []byte("transcr")) > 1 {
			return
		}
		if json.Unmarshal(data, &snap) == nil && got != snap.Transcript {
			t.Errorf("manifestRecord = %q, the whole manifest says %q", got, snap.Transcript)
		}
	})
}

// The blobs are swept where a prune removed a manifest, at most once
// within sweepEvery: a copy no manifest names stays until the next
// sweep, and then goes; a copy a manifest or a pending list names stays;
// a prune that removed nothing sweeps nothing.
func TestBlobsAreSweptAtMostOncePerBound(t *testing.T) {
	root, s := storeOver(t, map[string]string{"a.ts": "export const a = 1;\n"})
	now := time.Now()
	s.clock = func() time.Time { return now }
	snap, err := s.Ensure(context.Background(), root, "one", "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	orphan := func() string {
		t.Helper()
		n++
		h, err := s.keep([]byte(fmt.Sprint("orphan ", n)))
		if err != nil {
			t.Fatal(err)
		}
		old := now.Add(-2 * sweepEvery) // not one a snapshot being taken may name
		if err := os.Chtimes(s.blob(h), old, old); err != nil {
			t.Fatal(err)
		}
		return h
	}
	there := func(h string) bool { _, err := os.Stat(s.blob(h)); return err == nil }

	first, pending := orphan(), orphan()
	list, _ := json.Marshal(map[string]string{"a.ts": pending})
	if err := os.WriteFile(filepath.Join(s.dir, "sessions", "x.pending"), list, 0o600); err != nil {
		t.Fatal(err)
	}
	s.prune(root, "one") // nothing past the bounds: no sweep
	if !there(first) {
		t.Fatal("a prune that removed nothing swept the blobs")
	}
	s.sweepBlobs()
	if there(first) || !there(snap.Files["a.ts"]) || !there(pending) {
		t.Fatalf("the first sweep: the unnamed copy there %v, the named one %v, the pending one %v", there(first), there(snap.Files["a.ts"]), there(pending))
	}
	now = now.Add(sweepEvery / 2)
	second := orphan()
	s.sweepBlobs()
	if !there(second) {
		t.Fatal("a sweep ran within its bound")
	}
	now = now.Add(sweepEvery)
	s.sweepBlobs()
	if there(second) || !there(snap.Files["a.ts"]) {
		t.Fatalf("the sweep past its bound: the unnamed copy there %v, the named one %v", there(second), there(snap.Files["a.ts"]))
	}
}

// A record several sessions name (OpenCode's one database of all its
// sessions) says nothing of any one of them: past the usual bounds their
// snapshots stay sharedRecordTTL unused, then go, though the record is
// still there. A record one session names keeps it while it is there.
func TestASharedRecordKeepsItsSessionsForABound(t *testing.T) {
	root, s := storeOver(t, map[string]string{"a.ts": "export const a = 1;\n"})
	records := t.TempDir()
	testfs.Write(t, records, map[string]string{"opencode.db": "x", "own.jsonl": "{}\n"})
	shared, own := filepath.Join(records, "opencode.db"), filepath.Join(records, "own.jsonl")
	ctx := context.Background()
	for session, record := range map[string]string{"oc-1": shared, "oc-2": shared, "claude": own} {
		if _, err := s.Ensure(ctx, root, session, record); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		after  time.Duration
		shared bool // the shared record's sessions are still there
	}{
		{snapTTL + time.Hour, true},
		{sharedRecordTTL + time.Hour, false},
	} {
		s.clock = func() time.Time { return time.Now().Add(tc.after) }
		if _, err := s.Ensure(ctx, root, fmt.Sprint("later-", tc.after), ""); err != nil {
			t.Fatal(err)
		}
		// Looked at without Load, which marks a session in use.
		there := func(session string) bool { _, err := os.Stat(s.manifest(root, session)); return err == nil }
		for _, session := range []string{"oc-1", "oc-2"} {
			if there(session) != tc.shared {
				t.Errorf("after %s: %s kept %v, want %v", tc.after, session, there(session), tc.shared)
			}
		}
		if !there("claude") {
			t.Errorf("after %s: the session with a record of its own lost its snapshot", tc.after)
		}
	}
}
