package main

// gramc runs: the durable runs of a store. list and show report them,
// cancel stops one, resume decides the calls a run waits for and finishes
// it in this process, from its checkpoints.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/console"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// runsCommands are the subcommands of gramc runs.
var runsCommands = []command{
	{"list", "list the runs of the store", runRunsList},
	{"show", "show a run: its status, pending calls and answer", runRunsShow},
	{"cancel", "cancel a run that has not ended", runRunsCancel},
	{"resume", "decide the calls a run waits for and finish it", runRunsResume},
}

func runRuns(e *env, args []string) error {
	return runSubcommand(e, "runs", "[RUN_ID]", runsCommands, args)
}

// runsStore parses the command line of a runs subcommand that reads the
// store (list, show, cancel), opens the store and returns it with the
// arguments; the caller closes it.
func runsStore(e *env, fs *flag.FlagSet, cmd string, args []string, nargs int, what string) (*durable.Store, []string, error) {
	store := addStoreFlag(e, fs, nil, storeUsage)
	rest, err := parseFlags(e, fs, args)
	if err != nil {
		return nil, nil, err
	}
	if len(rest) != nargs {
		return nil, nil, usageError(cmd, "%s (see %s --help)", what, cmd)
	}
	st, _, err := openStore(context.Background(), cmd, *store, true, nil)
	return st, rest, err
}

// runError is the error of cmd about the run id, which the store could
// not give or change.
func runError(cmd, id string, err error) error {
	if errors.Is(err, durable.ErrNotFound) {
		return usageError(cmd, "the store holds no run %q; gramc runs list lists its runs (--store names another store)", id)
	}
	return fail(exitError, "%s: %s", cmd, strings.TrimPrefix(err.Error(), "durable: "))
}

func runRunsList(e *env, args []string) error {
	const cmd = "gramc runs list"
	fs := newFlags(e, "runs list")
	status := fs.String("status", "", "list only the runs of `STATUS`: running, awaiting_approval, completed, error, cancelled, ...")
	limit := fs.Int("limit", 0, "list at most `N` runs, the newest (0: all)")
	asJSON := fs.Bool("json", false, "print the runs as a JSON array")
	st, _, err := runsStore(e, fs, cmd, args, 0, "takes no arguments")
	if st != nil {
		defer st.Close()
	}
	if err != nil && !errors.Is(err, errNoStore) {
		return err
	}
	if err := durable.CheckStatus(*status); err != nil {
		return usageError(cmd, "--status: %v", err)
	}
	if *limit < 0 {
		return usageError(cmd, "--limit %d: give a number of runs, or 0 for all", *limit)
	}
	var runs []durable.Run
	if st != nil {
		if runs, err = st.List(context.Background(), durable.Filter{Status: *status, Limit: *limit}); err != nil {
			return runError(cmd, "", err)
		}
	}
	if *asJSON {
		for i := range runs {
			runs[i].Response = nil // the list leaves the responses out
		}
		return jsonvalue.WriteIndented(e.stdout, append([]durable.Run{}, runs...)) // [] when there are none
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tAGENT\tUPDATED\tPENDING")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", r.ID, r.Status, diag.Visible(r.Agent), r.Updated.UTC().Format(time.DateTime), len(r.Pending))
	}
	return tw.Flush()
}

func runRunsShow(e *env, args []string) error {
	const cmd = "gramc runs show"
	fs := newFlags(e, "runs show")
	asJSON := fs.Bool("json", false, "print the run, its response included, as JSON")
	st, rest, err := runsStore(e, fs, cmd, args, 1, "give the id of one run")
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := st.Get(context.Background(), rest[0])
	if err != nil {
		return runError(cmd, rest[0], err)
	}
	if *asJSON {
		return jsonvalue.WriteIndented(e.stdout, r)
	}
	w := e.stdout
	fmt.Fprintf(w, "run:      %s\nagent:    %s\nstatus:   %s\n", r.ID, diag.Visible(r.Agent), r.Status)
	fmt.Fprintf(w, "created:  %s\nupdated:  %s\n", r.Created.UTC().Format(time.DateTime), r.Updated.UTC().Format(time.DateTime))
	if len(r.Pending) > 0 {
		fmt.Fprintf(w, "pending:%s\n", pendingLines(r.Pending))
	}
	if r.Error != "" {
		fmt.Fprintf(w, "error:    %s\n", r.Error)
	}
	if text := console.AnswerText(r.Response); text != "" && r.Error == "" {
		fmt.Fprintf(w, "answer:   %s\n", text)
	}
	return nil
}

func runRunsCancel(e *env, args []string) error {
	const cmd = "gramc runs cancel"
	fs := newFlags(e, "runs cancel")
	st, rest, err := runsStore(e, fs, cmd, args, 1, "give the id of one run")
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Cancel(context.Background(), rest[0]); err != nil {
		return runError(cmd, rest[0], err)
	}
	fmt.Fprintf(e.stderr, "%s: the run %s is cancelled\n", cmd, rest[0])
	return nil
}

func runRunsResume(e *env, args []string) error {
	fs := newFlags(e, "runs resume")
	o := runOptions{cmd: "gramc runs resume"}
	var dec decisionFlags
	dec.register(fs)
	fs.BoolFunc("json", "print the events as JSON, one per line; --json=final prints the response", o.setJSON)
	o.addSharedFlags(fs)
	store := addStoreFlag(e, fs, nil, storeUsage)
	colorFlag(e, fs)
	ids, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return o.usageErr("give the id of one run (gramc runs list lists them); the run's agent and sources are in the store")
	}
	ds, err := dec.decisions()
	if err != nil {
		return o.usageErr("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, rb, err := openStore(ctx, o.cmd, *store, true, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	r, spec, err := resumable(ctx, st, o.cmd, ids[0])
	if err != nil {
		return err
	}
	o.file = spec.Settings[durable.SettingPath]
	o.b.From = []string{o.file}
	if err := applySettings(fs, spec.Settings); err != nil {
		return o.usageErr("%v", err)
	}
	s, closeTools, err := resumeSession(ctx, e, &o, spec)
	if err != nil {
		return err
	}
	defer closeTools()
	s.useDurable(st, *store, rb)
	s.durable.runID = r.ID
	return s.resume(ctx, r, ds, dec.given())
}

// resumable returns the run id and its spec, when it awaits approval.
func resumable(ctx context.Context, st *durable.Store, cmd, id string) (*durable.Run, durable.Spec, error) {
	r, err := st.Get(ctx, id)
	if err != nil {
		return nil, durable.Spec{}, runError(cmd, id, err)
	}
	switch r.Status {
	case durable.StatusAwaitingApproval:
	case durable.StatusRunning:
		if !processEnded(r.Executor) {
			return nil, durable.Spec{}, usageError(cmd, "the run %s is running, not awaiting approval: only a run that waits for decisions, or whose gramc process ended, is resumed (gramc runs cancel %s stops it)", id, id)
		}
	default:
		return nil, durable.Spec{}, usageError(cmd, "the run %s is %s: there is nothing to resume; gramc runs show %s shows it", id, r.Status, id)
	}
	spec, err := st.SpecOf(ctx, id)
	if err != nil {
		return nil, durable.Spec{}, runError(cmd, id, err)
	}
	return r, spec, nil
}

// resumeSession builds the session of a run from its spec and the
// command line: the program of its sources, the agent with its tools and
// model. The caller calls the function returned to close the tools.
func resumeSession(ctx context.Context, e *env, o *runOptions, spec durable.Spec) (*session, func(), error) {
	logger, injected, err := o.setup(e)
	if err != nil {
		return nil, nil, err
	}
	if len(spec.Injected) > 0 {
		// The values given again on the command line win.
		merged := maps.Clone(spec.Injected)
		maps.Copy(merged, injected)
		injected = merged
	}
	prog, tree, err := spec.Programs()
	if err != nil {
		return nil, nil, fail(exitError, "%s: the run cannot be built again: %v", o.cmd, err)
	}
	o.set.SetProgram(tree)
	agent, err := o.set.Pick(prog, spec.Agent, o.file)
	if err != nil {
		return nil, nil, fail(exitError, "%s: the run cannot be built again: %s", o.cmd, strings.TrimPrefix(err.Error(), o.cmd+": "))
	}
	lib, opts, _, closeTools, err := o.bind(ctx, []*schema.Agent{agent}, false, logger, injected)
	if err != nil {
		return nil, nil, err
	}
	return newSession(e, o, agent, lib, opts[0], spec.Conversation), closeTools, nil
}

// resume decides the calls the run r waits for (ds, or, when none is
// given, the answers of the terminal) and finishes the run.
func (s *session) resume(ctx context.Context, r *durable.Run, ds []runtime.Decision, given bool) error {
	d := s.durable
	if r.Status == durable.StatusRunning {
		// Its process ended mid-run: it goes on from its checkpoints.
		if given {
			return s.o.usageErr("the run %s waits for no decision: its process ended while it ran; resume it without --approve, --deny or --edit", r.ID)
		}
	} else if !given {
		if d.prompt == nil {
			return s.o.usageErr("the run %s waits for decisions on:%s\n  give them with --approve CALL_ID|all, --deny CALL_ID|all [--reason TEXT] or --edit CALL_ID=JSON", r.ID, pendingLines(r.Pending))
		}
		var err error
		if ds, err = d.prompt.Ask(ctx, r.Pending); err != nil {
			if ctx.Err() != nil {
				return fail(exitInterrupted, "%s: interrupted", s.o.cmd)
			}
			s.awaiting(&runtime.Response{Status: runtime.StatusAwaitingApproval, Agent: r.Agent, Pending: r.Pending})
			return errAwaiting
		}
	} else if err := runtime.CheckDecisions(s.agent, r.Pending, ds); err != nil {
		return s.o.usageErr("%v", err)
	}
	d.resume, d.decisions = r.ID, ds
	d.waited = r.Pending
	s.liveMode()
	err := s.turn(ctx, "")
	if ctx.Err() != nil {
		return binding.Lines(exitInterrupted, message(err), s.o.cmd+": interrupted")
	}
	return err
}
