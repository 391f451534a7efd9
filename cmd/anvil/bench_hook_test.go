package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/corpus"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// BenchmarkHookPreEdit times what a hooked client waits for before each
// edit: 'anvil hook pre-edit' end to end (the binary's start, reading the
// client's JSON, computing the edit, the daemon's verdict, the answer),
// beside 'anvil check' of the same change and the validation alone (the
// check's own elapsed time), on the warm ts-1000 project. Every
// iteration is a Claude Code Edit adding a line with a type error under
// a fresh name, and must be refused.
//
//	go test -run '^$' -bench BenchmarkHookPreEdit -benchtime 20x ./cmd/anvil
func BenchmarkHookPreEdit(b *testing.B) {
	dir := testfs.Tree(b, corpus.TSProject())
	const target = "src/f07/m23.ts"
	e := newBenchEnv(b)
	defer e.stop(b)
	base, err := os.ReadFile(filepath.Join(dir, target))
	if err != nil {
		b.Fatal(err)
	}
	last := string(base) // unique in the file, as Claude Code needs old_string to be
	run := 0
	bad := func() string {
		run++
		return fmt.Sprintf("export const anvilHook%d_%d: number = \"oops\";\n", time.Now().UnixNano()%1e6, run)
	}
	hook := func(b *testing.B) {
		in, _ := json.Marshal(map[string]any{
			"session_id": "bench", "cwd": dir, "hook_event_name": "PreToolUse", "tool_name": "Edit",
			"tool_input": map[string]any{"file_path": filepath.Join(dir, target), "old_string": last, "new_string": last + bad()},
		})
		cmd := exec.Command(filepath.Join(binDir, "anvil"), "hook", "pre-edit", "--client", "claude")
		cmd.Env, cmd.Dir, cmd.Stdin = e.environ(), dir, bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(`"permissionDecision":"deny"`)) {
			b.Fatalf("anvil hook pre-edit: %v\n%s", err, out)
		}
	}
	check := func(b *testing.B) int64 {
		cs, _ := json.Marshal(map[string]any{"changes": []map[string]any{{"path": target, "content": string(base) + bad()}}})
		cmd := exec.Command(filepath.Join(binDir, "anvil"), "check", "--json", "-C", dir, "-")
		cmd.Env, cmd.Stdin = e.environ(), bytes.NewReader(cs)
		out, _ := cmd.Output()
		var res struct {
			Verdict   string `json:"verdict"`
			ElapsedMS int64  `json:"elapsed_ms"`
		}
		if err := json.Unmarshal(out, &res); err != nil || res.Verdict != "rejected" {
			b.Fatalf("anvil check: %v\n%s", err, out)
		}
		return res.ElapsedMS
	}
	hook(b) // starts the daemon and its servers, takes the session's snapshot: untimed
	check(b)
	b.Run("hook", func(b *testing.B) {
		var samples []time.Duration
		for b.Loop() {
			start := time.Now()
			hook(b)
			samples = append(samples, time.Since(start))
		}
		percentiles(b, samples)
	})
	b.Run("check", func(b *testing.B) {
		var samples, validation []time.Duration
		for b.Loop() {
			start := time.Now()
			ms := check(b)
			samples = append(samples, time.Since(start))
			validation = append(validation, time.Duration(ms)*time.Millisecond)
		}
		percentiles(b, samples)
		b.ReportMetric(float64(median(validation))/float64(time.Millisecond), "validation-p50-ms")
	})
}

func median(s []time.Duration) time.Duration {
	c := slices.Clone(s)
	slices.Sort(c)
	return c[(len(c)-1)/2]
}
