package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/conversation"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/providers"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/slash"
)

// runSessionCommand runs a session's built-in command headless: on the
// session --resume names, else the workspace's last one.
// (anvil --continue /compact, anvil /diff, anvil --resume ID /plan).
func runSessionCommand(cmd *cobra.Command, o runOptions, name string, rest []string) error {
	ws := cmp.Or(o.dir, ".")
	args := strings.Join(rest, " ")
	if name == "help" {
		return sessionHelp(cmd, ws)
	}
	a, err := app.New(app.Options{Dir: ws})
	if err != nil {
		return badInput("%v", err)
	}
	defer a.Close()
	store, err := a.Conversations()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	switch name {
	case "resume":
		o.dir = ws
		return listSessions(cmd, o)
	case "clear":
		fmt.Fprintln(out, "a request without --continue or --resume starts a new session")
		return nil
	case "model":
		fmt.Fprintf(out, "model: %s (provider %s); another for one run: --model NAME, for good: anvil config set model NAME\n",
			cmp.Or(o.model, a.Config.Model, "the provider's default"), cmp.Or(o.provider, a.Config.Provider, "from the environment"))
		return nil
	case "memory":
		return showMemory(cmd, a)
	}
	// /diff and /plan read the session (another process may have it
	// open); /undo and /compact write to it, one process at a time.
	id := ""
	if o.resume != "" && o.resume != resumeList {
		id = o.resume
	}
	var sess *conversation.Session
	switch {
	case name == "diff" || name == "plan":
		sess, err = store.Look(id)
	case id != "":
		sess, err = store.Resume(id)
	default:
		sess, err = store.Latest()
	}
	if err != nil {
		return badInput("%v", err)
	}
	defer sess.Close()
	reportProblems(cmd.ErrOrStderr(), sess)
	switch name {
	case "diff":
		if d := sess.Diff(); d != "" {
			fmt.Fprint(out, d)
		} else {
			fmt.Fprintf(out, "session %s has committed nothing\n", sess.ID)
		}
	case "plan":
		if p := sess.LastPlan(); p != nil {
			fmt.Fprint(out, p.Markdown())
		} else {
			fmt.Fprintf(out, "session %s has no plan yet\n", sess.ID)
		}
	case "undo":
		return sessionUndo(cmd, a, sess)
	case "compact":
		provider, err := providers.Select(providers.Choice{Provider: cmp.Or(o.provider, a.Config.Provider), Model: cmp.Or(o.model, a.Config.Model),
			BaseURL: a.Config.BaseURL, ReplayScript: o.replay}, os.Getenv)
		if err != nil {
			return badInput("%v", err)
		}
		model := cmp.Or(o.model, a.Config.Model, provider.Model())
		summary, err := sess.Compact(cmd.Context(), provider, model, llm.ContextWindow(model, a.Config.ContextWindow))
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "session %s compacted: its %d requests are now this summary (their plans are kept verbatim):\n\n%s\n", sess.ID, sess.Requests(), summary)
	default:
		return badInput("/%s: %s", name, args)
	}
	return nil
}

// sessionUndo undoes the session's last commit when it is the workspace's
// last, and records it; after another run's commit it refuses, naming it.
func sessionUndo(cmd *cobra.Command, a *app.App, sess *conversation.Session) error {
	last, ok := sess.LastCommit()
	if !ok {
		return badInput("session %s has committed nothing to undo", sess.ID)
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	svc := warmService(cmd, a)
	defer svc.close()
	u, err := svc.Undo(ctx, service.UndoOptions{Entry: last.Entry})
	if err != nil {
		return err
	}
	switch {
	case u.Nothing:
		return badInput("there is no commit to undo")
	case u.NotLast != "":
		return &exitError{code: exitFailure, err: fmt.Errorf("not undone: this session's last commit (%s) is not the workspace's last; %s was committed after it (anvil undo reverts that one first)", last.Entry, u.NotLast)}
	case len(u.Conflict) > 0:
		return &exitError{code: exitFailure, err: fmt.Errorf("not undone: %s changed since the commit", strings.Join(u.Conflict, ", "))}
	}
	if err := sess.Append(conversation.Record{Kind: conversation.KindUndo, N: last.N, Entry: u.Entry, Files: u.Restored}); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "undid %s: restored %d files (%s)\n", u.Entry, len(u.Restored), strings.Join(u.Restored, ", "))
	printGit(cmd.OutOrStdout(), u.Git)
	return nil
}

// sessionHelp lists the session's commands and the project's.
func sessionHelp(cmd *cobra.Command, ws string) error {
	fmt.Fprint(cmd.OutOrStdout(), helpText(ws))
	return nil
}

// helpText lists the session's commands and the project's.
func helpText(ws string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, c := range conversation.Builtins {
		fmt.Fprintf(tw, "/%s\t%s\n", c.Name, c.Description)
	}
	if cmds, err := slash.List(commandDirs(ws)); err == nil {
		for _, c := range cmds {
			fmt.Fprintf(tw, "/%s\t%s (.anvil/commands)\n", c.Name, c.Description)
		}
	}
	tw.Flush()
	return b.String()
}

// showMemory lists the rules files that apply in the workspace.
func showMemory(cmd *cobra.Command, a *app.App) error {
	fmt.Fprint(cmd.OutOrStdout(), memoryText(cmd.Context(), a))
	return nil
}

// memoryText describes the rules files that apply in the workspace.
func memoryText(ctx context.Context, a *app.App) string {
	var b strings.Builder
	files := agent.FindRules(ctx, a.Root, a.UserRules())
	if len(files) == 0 {
		fmt.Fprintf(&b, "no rules files: write AGENTS.md (or .anvil/rules.md) in the workspace or a directory of it, or %s for every workspace\n", a.UserRules())
		return b.String()
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tAPPLIES TO\tBYTES")
	for _, f := range files {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", f.Path, f.Applies, f.Bytes)
	}
	tw.Flush()
	b.WriteString("\nthe workspace's and yours reach the agents with every request; a directory's, with the first file they read or edit under it\n")
	return b.String()
}
