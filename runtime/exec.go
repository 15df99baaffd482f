// Exec tools: a tool implemented by an external program, so tools can be
// written in any language and swapped without touching the agent file.

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// DefaultExecTimeout limits an exec tool's run when no timeout is given.
const DefaultExecTimeout = 30 * time.Second

// ExecTool returns a tool called name that runs command with `sh -c`. The
// program receives the validated arguments (defaults applied, injected
// parameters set) as a JSON object on its standard input and prints its
// result on standard output: the result is that JSON value when the output
// parses as JSON, the text (without its final newline) otherwise. A
// non-zero exit is a tool error whose message is the program's standard
// error. A run longer than timeout (0 means [DefaultExecTimeout]) is killed
// and fails. The program inherits the environment without OPENAI_API_KEY,
// plus GRAM_TOOL set to the tool's name.
//
// The tool has no schema of its own: it accepts whatever the specification
// declares.
func ExecTool(name, command string, timeout time.Duration) Tool {
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	return Tool{Name: name, Invoke: func(ctx context.Context, args map[string]any) (any, error) {
		in, err := marshalNoEscape(args)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Stdin = bytes.NewReader(append(in, '\n'))
		var stdout, stderr bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		cmd.Env = append(execEnv(), "GRAM_TOOL="+name)
		cmd.WaitDelay = time.Second
		killGroup(cmd)
		err = cmd.Run()
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("the program did not finish within %v", timeout)
		}
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if len(msg) > 2000 {
				msg = msg[:2000] + "…"
			}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if msg == "" {
					msg = fmt.Sprintf("the program exited with status %d", ee.ExitCode())
				}
				return nil, errors.New(msg)
			}
			return nil, fmt.Errorf("running the program: %w", err)
		}
		out := bytes.TrimRight(stdout.Bytes(), "\r\n")
		if t := bytes.TrimSpace(out); len(t) > 0 && json.Valid(t) {
			var b bytes.Buffer
			if json.Compact(&b, t) == nil {
				return json.RawMessage(b.Bytes()), nil
			}
		}
		return string(out), nil
	}}
}

// execEnv returns the environment of exec tools: this process's, without
// the model provider's key.
func execEnv() []string {
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
