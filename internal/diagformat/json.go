package diagformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
)

type rustcSpan struct {
	FileName    string `json:"file_name"`
	LineStart   int    `json:"line_start"`
	ColumnStart int    `json:"column_start"`
	LineEnd     int    `json:"line_end"`
	ColumnEnd   int    `json:"column_end"`
	IsPrimary   bool   `json:"is_primary"`
}

type rustcRecord struct {
	Reason  string `json:"reason"`
	Success *bool  `json:"success"`
	Message *struct {
		Level   string `json:"level"`
		Message string `json:"message"`
		Code    *struct {
			Code string `json:"code"`
		} `json:"code"`
		Spans []rustcSpan `json:"spans"`
	} `json:"message"`
}

var (
	cargoError    = regexp.MustCompile(`^error(?:\[(E\d+)\])?: (.*)$`)
	cargoLocation = regexp.MustCompile(`^\s*--> (.+):(\d+):(\d+)$`)
	// cargo before 1.68 (Debian 12's 1.65) says where a manifest does not
	// parse in a chain of causes: the manifest's path, then the TOML
	// parser's position.
	cargoManifestAt = regexp.MustCompile("^failed to parse manifest at `(.+)`$")
	cargoTOMLAt     = regexp.MustCompile(`^TOML parse error at line (\d+), column (\d+)$`)
	// rustcSummary is rustc's last word on a crate that failed ("aborting
	// due to 2 previous errors", "aborting due to previous error"): a
	// count of the errors before it, no finding. cargo 1.74 and later
	// drop it from their JSON; older ones pass it on.
	rustcSummary = regexp.MustCompile(`^aborting due to (\d+ )?previous errors?`)
)

// parseRustc reads cargo's --message-format=json: one JSON record per
// line on standard output, cargo's own messages (progress, "could not
// compile") on standard error between them. A line that starts a JSON
// object and does not parse is garbled output; a run without its
// "build-finished" record was cut short. cargo's own errors with a
// location (a manifest that does not parse) count as diagnostics of
// that file.
func parseRustc(in Input) (Report, error) {
	ls, err := lines(in.Output)
	if err != nil {
		return Report{}, err
	}
	files := map[string][]lsp.Diagnostic{}
	finished, failed := false, false
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "{") {
			var rec rustcRecord
			if err := json.Unmarshal([]byte(t), &rec); err != nil {
				return Report{}, fmt.Errorf("a record does not read (%v): %.200s", err, t)
			}
			switch rec.Reason {
			case "build-finished":
				finished = true
				failed = rec.Success != nil && !*rec.Success
			case "compiler-message":
				if rec.Message == nil {
					return Report{}, errors.New("a compiler-message record without its message")
				}
				m := rec.Message
				if m.Level == "failure-note" {
					continue // "For more information about this error, try…"
				}
				code := ""
				if m.Code != nil {
					code = m.Code.Code
				}
				var span *rustcSpan
				for j := range m.Spans {
					if m.Spans[j].IsPrimary {
						span = &m.Spans[j]
						break
					}
				}
				if span == nil {
					if rustcSummary.MatchString(m.Message) {
						continue
					}
					add(files, "", at(0, 0, severity(m.Level), code, "rustc", m.Message))
					continue
				}
				d := at(span.LineStart, span.ColumnStart, severity(m.Level), code, "rustc", m.Message)
				d.Range.End = lsp.Position{Line: max(span.LineEnd-1, 0), Character: max(span.ColumnEnd-1, 0)}
				add(files, in.path(span.FileName), d)
			}
			continue
		}
		if m := cargoError.FindStringSubmatch(t); m != nil && i+1 < len(ls) {
			if loc := cargoLocation.FindStringSubmatch(ls[i+1]); loc != nil {
				add(files, in.path(loc[1]), at(atoi(loc[2]), atoi(loc[3]), lsp.SeverityError, m[1], "cargo", m[2]))
			}
		}
		if m := cargoManifestAt.FindStringSubmatch(t); m != nil {
			// Its chain of causes runs to the next error: a position past
			// that is another error's.
			for _, next := range ls[i+1:] {
				if strings.HasPrefix(strings.TrimSpace(next), "error") {
					break
				}
				if loc := cargoTOMLAt.FindStringSubmatch(strings.TrimSpace(next)); loc != nil {
					add(files, in.path(m[1]), at(atoi(loc[1]), atoi(loc[2]), lsp.SeverityError, "", "cargo", "could not parse the manifest as TOML"))
					break
				}
			}
		}
	}
	if !finished && !anyError(files) {
		if in.Exit == 0 {
			return Report{}, fmt.Errorf("cargo's report ended before its build-finished record: %s", Tail(in.Output))
		}
		return Report{}, failedSilently(in)
	}
	r, err := finish(in, files)
	switch {
	case err != nil:
	case !finished:
		// Errors without a build-finished record: cargo stopped before
		// building (a manifest that does not parse), so it checked no
		// crate, and its silence about every file is no evidence.
		r.Incomplete = "cargo stopped before it built anything: no crate was checked"
	case failed:
		r.Incomplete = cargoStopped(ls)
	}
	return r, err
}

// cargoUnitFailed is cargo's line for a unit that did not compile.
// (cargo before 1.67 names no target: "could not compile `b` due to 2
// previous errors").
var cargoUnitFailed = regexp.MustCompile("^error: could not compile `[^`]+`( \\([^)]+\\))?")

// cargoStopped says why a failed build's answer is incomplete: cargo
// compiles nothing that depends on a unit that failed, starts no new
// unit after the first failure, and rustc stops a crate at an error its
// lexer cannot recover from (an unclosed delimiter), so an error the
// change adds there is never printed, on either side of it.
func cargoStopped(ls []string) string {
	why := "cargo's build failed"
	if i := slices.IndexFunc(ls, cargoUnitFailed.MatchString); i >= 0 {
		why = cargoUnitFailed.FindString(ls[i])
	}
	return why + ": what depends on the unit that failed, the units cargo did not start after it, and the rest of a crate rustc stopped in were not checked"
}

type sarifLog struct {
	Version string `json:"version"`
	Runs    []struct {
		Results []struct {
			RuleID  string `json:"ruleId"`
			Level   string `json:"level"`
			Message struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// parseSARIF reads a SARIF 2.1.0 log: the results of every run, each at
// its first physical location. A result without a level is a warning,
// as the standard says.
func parseSARIF(in Input) (Report, error) {
	out := in.Output
	if i := bytes.IndexByte(out, '{'); i >= 0 {
		out = out[i:]
	}
	var log sarifLog
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&log); err != nil {
		return Report{}, fmt.Errorf("the log does not read (%v): %s", err, Tail(in.Output))
	}
	if log.Runs == nil {
		return Report{}, fmt.Errorf("the log has no runs: %s", Tail(in.Output))
	}
	files := map[string][]lsp.Diagnostic{}
	for _, run := range log.Runs {
		for _, r := range run.Results {
			level := r.Level
			if level == "" {
				level = "warning"
			}
			sev := severity(level)
			if level == "none" {
				sev = lsp.SeverityHint
			}
			if len(r.Locations) == 0 {
				add(files, "", at(0, 0, sev, r.RuleID, "sarif", r.Message.Text))
				continue
			}
			loc := r.Locations[0].PhysicalLocation
			add(files, in.path(loc.ArtifactLocation.URI), at(loc.Region.StartLine, loc.Region.StartColumn, sev, r.RuleID, "sarif", r.Message.Text))
		}
	}
	return finish(in, files)
}
