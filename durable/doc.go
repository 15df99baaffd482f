// Package durable keeps runs of agents in a store, so that a run outlives
// the process that started it: a run that waits for a person's decision,
// or whose process died mid-step, is finished later, from its checkpoints,
// by a process of the same executor id or by [Store.Resume].
//
// # Entry points
//
//   - [Open] opens a store: a path or sqlite:PATH (one SQLite file, pure
//     Go) or postgres://... (PostgreSQL, which replicas share).
//   - [Store.Start] starts a run of a [Spec] (what a run needs to be built
//     again in another process: the agent, the package's sources, the
//     input); [Store.Wait] waits until it awaits approval or has ended;
//     [Store.Get] and [Store.List] report runs ([Run]).
//   - [Store.Decide] answers a run's pending calls of approval tools,
//     checked with [runtime.CheckDecisions]; [Store.Cancel] cancels a run;
//     [Store.Resume] makes this process run again a run left by a process
//     that ended.
//   - [DefaultStore] and [MissingStore]: the store of a user's own runs;
//     [Handover]: the [Binder] of a process that builds its run itself;
//     [PackageSources] and [Spec.Programs]: the package a run keeps, and
//     its programs compiled again from the spec alone; [PathSettings]:
//     what it runs.
//   - [Store.Finish] waits for a run as one turn of a conversation,
//     asking for the decisions it awaits; [AfterReplay] drops the events
//     a resumed run replays.
//
// # How a run is kept
//
// A run is one workflow of DBOS Transact (github.com/dbos-inc/dbos-transact-golang),
// named "gram.run", whose input is the [Spec] as JSON. The workflow binds the
// spec with the store's [Binder] and calls [runtime.Run] with two options
// of the store's:
//
//   - a [runtime.Checkpointer]: each model call and each tool call is a
//     DBOS step (dbos.RunAsStep) named as the runtime names it
//     ("model:AGENT", "tool:TOOL"), whose result is the step's bytes; a
//     tool step runs with the idempotency key RUN_ID/STEP_NUMBER
//     ([runtime.WithIdempotencyKey]), the same on every replay of the step.
//   - a [runtime.Approver]: it publishes the event "gram.state",
//     {status: awaiting_approval, pending, round}, then waits for the
//     decisions on the topic "gram.decisions" (dbos.Recv, a durable wait),
//     then publishes {status: running}. [Store.Decide] sends them
//     (dbos.Send), with the round they answer, once per round.
//
// The workflow's output is the final [runtime.Response] as JSON; a run
// whose runtime reports an error ends with that response (status "error").
// [Store.Get] reads the status from the workflow's status and the
// "gram.state" event.
//
// Every build of gram writes and recovers runs under one application name
// ([AppName]) and one application version ([ApplicationVersion]), so a new
// build finishes the runs an older one left. (DBOS reads DBOS__APPVERSION
// and DBOS__VMID from the environment and they override both; leave them
// unset.)
//
// # Executor ids and recovery
//
// A store is opened under an executor id ([Options.ExecutorID]). When it
// opens, DBOS recovers the runs that a process of the same executor id left
// unfinished (status PENDING): they are queued and run again from their
// checkpoints. [Store.Resume] resumes one run, whatever its executor, on
// a queue that only the store resuming it serves. Hence the choice of
// executor id:
//
//   - a command-line process uses an executor id of its own per run (the
//     default: a fresh id each time a store is opened), so that resuming
//     a run recovers that run alone, and a process never takes over the
//     runs of another command that is still running;
//   - a server uses a stable id (its name among the replicas), so that when
//     it restarts it finishes the runs it left.
//
// The runs recovered when a store opens are put on DBOS's internal queue,
// which every open store of the same application version serves: in a
// PostgreSQL store shared by replicas, any of them may pick a recovered run
// up. A store serves no other queue but its own.
package durable
