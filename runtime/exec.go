// Exec tools: a tool implemented by an external program, so tools can be
// written in any language and swapped without touching the agent file.

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gramlang/gram/internal/jsonvalue"
)

// DefaultExecTimeout limits an exec tool's run when no timeout is given.
const DefaultExecTimeout = 30 * time.Second

// DefaultExecOutputLimit bounds what is read of an exec tool's standard
// output when the run has no result limit.
const DefaultExecOutputLimit = 16 << 20

// execSlack is what is read past the result limit, to know that the output
// was longer.
const execSlack = 4 << 10

// maxExecStderr is what is kept of an exec tool's standard error.
const maxExecStderr = 64 << 10

// ExecTool returns a tool called name that runs command with `sh -c`. The
// program receives the validated arguments (defaults applied, injected
// parameters set) as a JSON object on its standard input and prints its
// result on standard output: the result is that JSON value when the output
// parses as JSON, the text (without its final newline) otherwise. A
// non-zero exit is a tool error whose message is the program's standard
// error (or, for a program killed by a signal, names the signal). A run
// longer than timeout (0 means [DefaultExecTimeout]) is killed and fails.
// The program inherits the environment without OPENAI_API_KEY, plus
// GRAM_TOOL set to the tool's name, and in a checkpointed step
// GRAM_IDEMPOTENCY_KEY set to the call's key (see [IdempotencyKey]). What a program that succeeds writes on
// standard error is logged at debug level on the run's logger (see
// [WithLogger]). A program that exits leaving a child process that holds its
// standard output open succeeds with what it wrote within a second after it
// exited; the children are then stopped, and a warning says so.
//
// Output is read up to the run's result limit (see [WithResultLimit]) and
// a little more, or [DefaultExecOutputLimit] without one: a program that
// writes more is stopped, and the result is the text it wrote up to there
// followed by a note that says it was cut. Only the first 64 KiB of its
// standard error are kept. With [WithToolTrace], the standard error is
// also written to the trace, whether the program succeeded or not.
//
// The tool has no schema of its own: it accepts whatever the specification
// declares.
func ExecTool(name, command string, timeout time.Duration) Tool {
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	return Tool{Name: name, Invoke: func(ctx context.Context, args map[string]any) (any, error) {
		in, err := jsonvalue.Marshal(args)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Stdin = bytes.NewReader(append(in, '\n'))
		stdout := &capWriter{max: execOutputLimit(ctx), full: stop}
		stderr := &capWriter{max: maxExecStderr}
		cmd.Stdout = stdout
		cmd.Stderr = stderr
		cmd.Env = append(ToolEnv(), "GRAM_TOOL="+name)
		if key := IdempotencyKey(ctx); key != "" {
			cmd.Env = append(cmd.Env, "GRAM_IDEMPOTENCY_KEY="+key)
		}
		cmd.WaitDelay = time.Second
		killGroup(cmd)
		err = cmd.Run()
		log := toolLogger(ctx)
		traceStderr(ctx, stderr)
		if errors.Is(err, exec.ErrWaitDelay) {
			// The program exited but a child it started kept the output
			// open: keep what was written, stop the children.
			stopGroup(cmd)
			log.Warn("the tool program exited, but a process it started kept its standard output open; the output written until a second after it exited is the result, and the process was stopped")
			err = nil
		}
		if stdout.cut {
			// Stopped for writing too much: what it wrote is the result.
			return fmt.Sprintf("%s\n[output cut: the program wrote more than %d bytes; the rest was not read and the program was stopped]",
				strings.ToValidUTF8(stdout.b.String(), ""), stdout.max), nil
		}
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("the program did not finish within %v", timeout)
		}
		if err != nil {
			msg := strings.TrimSpace(stderr.b.String())
			if len(msg) > 2000 {
				msg = msg[:2000] + "…"
			}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				status := fmt.Sprintf("the program exited with status %d", ee.ExitCode())
				if sig := signalOf(ee.ProcessState); sig != "" {
					status = "the program was killed by " + sig
				}
				switch {
				case msg == "":
					msg = status
				case ee.ExitCode() < 0:
					msg += "\n(" + status + ")"
				}
				return nil, errors.New(msg)
			}
			return nil, fmt.Errorf("running the program: %w", err)
		}
		if text := strings.TrimSpace(stderr.b.String()); text != "" && log.Enabled(ctx, slog.LevelDebug) {
			log.Debug("tool program standard error", "stderr", strings.ToValidUTF8(text, "\uFFFD"), "cut", stderr.cut)
		}
		out := bytes.TrimRight(stdout.b.Bytes(), "\r\n")
		if t := bytes.TrimSpace(out); len(t) > 0 && json.Valid(t) {
			var b bytes.Buffer
			if json.Compact(&b, t) == nil {
				return json.RawMessage(b.Bytes()), nil
			}
		}
		return string(out), nil
	}}
}

// capWriter keeps the first max bytes written to it and drops the rest;
// at the first byte past max it sets cut and calls full.
type capWriter struct {
	b    bytes.Buffer
	max  int
	cut  bool
	full func()
}

// Write implements io.Writer. It never fails, so the program's writes do
// not block while it is being stopped.
func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - w.b.Len()
	if room >= len(p) {
		w.b.Write(p)
		return len(p), nil
	}
	if room > 0 {
		w.b.Write(p[:room])
	}
	if !w.cut {
		w.cut = true
		if w.full != nil {
			w.full()
		}
	}
	return len(p), nil
}

// toolTrace is where a tool call's program writes its standard error for
// [WithToolTrace].
type toolTrace struct {
	w          io.Writer
	tool, call string
	// run names the agents of a nested run ("support > billing"), "" for
	// the top run.
	run string
}

// toolTraceKey is the context key of the [toolTrace] of a tool call.
type toolTraceKey struct{}

// withToolTrace returns ctx carrying the trace of a tool call.
func withToolTrace(ctx context.Context, t toolTrace) context.Context {
	return context.WithValue(ctx, toolTraceKey{}, t)
}

// traceStderr writes a program's standard error to the trace of the tool
// call of ctx, if it has one and the program wrote any.
func traceStderr(ctx context.Context, stderr *capWriter) {
	t, ok := ctx.Value(toolTraceKey{}).(toolTrace)
	if !ok || t.w == nil || len(bytes.TrimSpace(stderr.b.Bytes())) == 0 {
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "--- tool %s", t.tool)
	if t.call != "" {
		fmt.Fprintf(&b, " (call %s)", t.call)
	}
	if t.run != "" {
		fmt.Fprintf(&b, " of %s", t.run)
	}
	b.WriteString(": standard error\n")
	b.WriteString(strings.ToValidUTF8(strings.TrimRight(stderr.b.String(), "\r\n"), "\uFFFD"))
	b.WriteByte('\n')
	if stderr.cut {
		fmt.Fprintf(&b, "[cut: only the first %d bytes are kept]\n", stderr.max)
	}
	b.WriteByte('\n')
	_, _ = t.w.Write(b.Bytes())
}

// toolLoggerKey is the context key of the logger of a tool call.
type toolLoggerKey struct{}

// withToolLogger returns ctx carrying the logger of a tool call.
func withToolLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, toolLoggerKey{}, l)
}

// toolLogger returns the logger of the tool call of ctx, or one that drops
// everything.
func toolLogger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(toolLoggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// resultLimitKey is the context key of the run's result limit.
type resultLimitKey struct{}

// withResultLimit returns ctx carrying the result limit of the run, which
// bounds what tools read.
func withResultLimit(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, resultLimitKey{}, n)
}

// execOutputLimit is what is read of an exec tool's output in ctx.
func execOutputLimit(ctx context.Context) int {
	if n, ok := ctx.Value(resultLimitKey{}).(int); ok && n > 0 {
		return n + execSlack
	}
	return DefaultExecOutputLimit
}

// ToolEnv returns the environment of tool processes (exec tools, MCP
// servers): this process's, without the model provider's key.
func ToolEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENAI_API_KEY=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
