package ui

import "github.com/anvil-dev/anvil/internal/event"

// ShadowLine is the one-line form of a validation cycle that the plain
// renderer prints, exported so that the TUI (package tui) words cycles the
// same way: "shadow 2/3 · validating src/db.ts", "shadow check · rejected:
// 1 new error in src/auth.ts".
func ShadowLine(e event.Shadow) string { return shadowLine(e) }

// OneLine collapses the whitespace of s (newlines included) to single
// spaces, as the plain renderer does. A result longer than n bytes is cut
// on a rune boundary before its nth byte and ends with "…".
func OneLine(s string, n int) string { return oneLine(s, n) }
