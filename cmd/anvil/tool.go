package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/service"
)

type toolOptions struct {
	dir      string
	json     bool
	schema   bool
	noDaemon bool
}

func newToolCmd() *cobra.Command {
	var opts toolOptions
	cmd := &cobra.Command{
		Use:   "tool [NAME [ARGS_JSON|-]]",
		Short: "Run one of the agent's tools from the shell",
		Long: `Run one tool exactly as the agent would, and print its result.

ARGS_JSON is the tool's arguments as a JSON object ("-" reads it from stdin;
omitted means {}). Without NAME, lists the tools. With --schema, prints the
tool's input schema instead of running it.

Exit status: 0 the tool succeeded, 1 the tool reported an error (the kind a
model would be asked to fix), 2 Anvil failed, 3 bad input.`,
		Example: `  anvil tool read_file '{"path":"src/db.ts","start_line":10,"end_line":40}'
  anvil tool list_files -C ./my-project '{"pattern":"**/*.go"}'
  echo '{"pattern":"TODO"}' | anvil tool text_search --json -`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd, opts, args)
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "C", ".", "workspace root")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"ok", "output", "data"} as JSON`)
	cmd.Flags().BoolVar(&opts.schema, "schema", false, "print the tool's input schema instead of running it")
	cmd.Flags().BoolVar(&opts.noDaemon, "no-daemon", false, "run with language servers of this run's own, not the daemon's")
	return cmd
}

func runTool(cmd *cobra.Command, opts toolOptions, args []string) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
	defer stop()

	svc, closeSvc, err := openService(ctx, cmd, opts.dir, opts.noDaemon, true)
	if err != nil {
		return err
	}
	defer closeSvc()
	tools, err := svc.Tools(ctx)
	if err != nil {
		return serviceError(err)
	}

	out := cmd.OutOrStdout()
	if len(args) == 0 {
		return listTools(out, tools)
	}
	var tool *service.ToolInfo
	var names []string
	for i, t := range tools {
		names = append(names, t.Name)
		if t.Name == args[0] {
			tool = &tools[i]
		}
	}
	if tool == nil {
		return badInput("unknown tool %q; available: %s", args[0], strings.Join(names, ", "))
	}
	if opts.schema {
		return writeJSON(out, tool.InputSchema)
	}
	raw, err := toolArgs(cmd.InOrStdin(), args[1:])
	if err != nil {
		return badInput("%v", err)
	}
	res, err := svc.Tool(ctx, tool.Name, raw, nil)
	if err != nil {
		if service.IsInput(err) {
			return badInput("%v", err)
		}
		return &exitError{code: 2, err: err}
	}
	if opts.json {
		data := res.Data
		if data == nil {
			data = json.RawMessage("null")
		}
		if err := writeJSON(out, struct {
			OK     bool            `json:"ok"`
			Output string          `json:"output"`
			Data   json.RawMessage `json:"data"`
		}{!res.IsError, res.Output, data}); err != nil {
			return err
		}
	} else {
		w := out
		if res.IsError {
			w = cmd.ErrOrStderr()
		}
		fmt.Fprint(w, res.Output)
		if !strings.HasSuffix(res.Output, "\n") {
			fmt.Fprintln(w)
		}
	}
	if res.IsError {
		return &exitError{code: exitFailure}
	}
	return nil
}

// toolArgs returns the raw arguments: the argument itself, stdin for "-",
// or {} when absent.
func toolArgs(stdin io.Reader, args []string) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage("{}"), nil
	}
	if args[0] != "-" {
		return json.RawMessage(args[0]), nil
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return nil, fmt.Errorf("read arguments from stdin: %w", err)
	}
	return json.RawMessage(data), nil
}

func listTools(w io.Writer, tools []service.ToolInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		first, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, first)
	}
	return tw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
