package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/conversation"
)

// listSessions prints the workspace's sessions, the most recent first:
// what --resume continues.
func listSessions(cmd *cobra.Command, o runOptions) error {
	a, err := app.New(app.Options{Dir: cmp.Or(o.dir, ".")})
	if err != nil {
		return badInput("%v", err)
	}
	defer a.Close()
	store, err := a.Conversations()
	if err != nil {
		return err
	}
	infos, err := store.List()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if o.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	}
	if len(infos) == 0 {
		fmt.Fprintf(out, "no sessions in %s yet\n", a.Root.Dir())
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLAST USED\tREQUESTS\tFIRST REQUEST\tFILES CHANGED")
	for _, in := range infos {
		first := in.FirstRequest
		if len(first) > 50 {
			first = first[:47] + "..."
		}
		switch {
		case in.OpenBy != nil:
			first += fmt.Sprintf(" (open in pid %d)", in.OpenBy.PID)
		case in.Interrupted:
			first += " (interrupted)"
		}
		files := strings.Join(in.FilesChanged, ", ")
		if len(files) > 60 {
			files = fmt.Sprintf("%s and %d more", strings.Join(in.FilesChanged[:2], ", "), len(in.FilesChanged)-2)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", in.ID, in.Updated.Local().Format("2006-01-02 15:04"), in.Requests, first, cmp.Or(files, "-"))
	}
	tw.Flush()
	for _, in := range infos {
		for _, p := range in.Problems {
			fmt.Fprintf(out, "session %s: %s\n", in.ID, p)
		}
	}
	fmt.Fprintln(out, "\ncontinue one with: anvil --resume ID \"<request>\" (the latest: anvil --continue \"<request>\")")
	return nil
}

// problemLines says which lines of sess's file were not read as they
// stand, one line each: what opening a session tells the user.
func problemLines(sess *conversation.Session) []string {
	var out []string
	for _, p := range sess.Problems() {
		out = append(out, fmt.Sprintf("session %s: %s", sess.ID, p))
	}
	return out
}

// reportProblems writes [problemLines] to w, each as a warning.
func reportProblems(w io.Writer, sess *conversation.Session) {
	for _, l := range problemLines(sess) {
		fmt.Fprintln(w, "anvil: "+l)
	}
}
