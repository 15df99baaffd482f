package binding

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
)

// TestBindHints: the hints follow the kinds of the tool errors, wherever
// they are wrapped or joined, not the words of their messages.
func TestBindHints(t *testing.T) {
	missing := &runtime.ToolError{Tool: "a", Kind: runtime.ToolMissing, Message: "gone"}
	looser := &runtime.ToolError{Tool: "b", Kind: runtime.ToolIncompatible, Message: "wide"}
	worded := &runtime.ToolError{Tool: "c", Kind: runtime.ToolFailed, Message: "is not in the tool library; the declaration is looser"}
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"none", nil, nil},
		{"missing", missing, []string{"bind a missing tool"}},
		{"wrapped in a prepare error", fmt.Errorf("agent x: %w", &runtime.PrepareError{Problems: []error{looser}}), []string{"narrow the declaration"}},
		{"joined", errors.Join(looser, fmt.Errorf("agent y: %w", missing)), []string{"bind a missing tool", "narrow the declaration"}},
		{"the words alone", worded, nil},
	}
	for _, c := range cases {
		got := BindHints(c.err)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s: hints %q, want ones with %q", c.name, got, c.want)
		}
	}
}

// TestSetupError: the problems found before a run are reported each on a
// line, with the hints their kinds call for and the exit code: 3 for
// configuration, 1 for tools that only fail to bind.
func TestSetupError(t *testing.T) {
	missing := &runtime.ToolError{Tool: "a", Kind: runtime.ToolMissing, Message: "is not in the tool library"}
	noValue := &runtime.InjectionError{Tool: "a", Param: "user", Message: "the host gave no value"}
	unchecked := &runtime.ToolError{Tool: "b", Kind: runtime.ToolInjection, Message: "its injected parameters cannot be checked"}
	worded := &runtime.ToolError{Tool: "injected", Kind: runtime.ToolMissing, Message: "is not in the tool library"}
	const injectHint = "hint: give each injected parameter a value"
	cases := []struct {
		name     string
		problems []string
		errs     []error
		config   bool
		stray    bool
		code     Kind
		hint     bool
	}{
		{"nothing", nil, nil, false, false, 0, false},
		{"missing tool", nil, []error{missing}, false, false, Failed, false},
		{"no value", nil, []error{missing, noValue}, true, false, Config, true},
		{"unchecked", nil, []error{fmt.Errorf("agent x: %w", unchecked)}, true, false, Config, true},
		{"stray name", []string{"--inject usr: no tool injects it"}, nil, false, true, Config, true},
		{"other flag problem", []string{"--tool x: the agent has no tool"}, []error{worded}, false, false, Config, false},
	}
	for _, c := range cases {
		err := SetupError("gramc run", c.problems, c.errs, c.config, c.stray)
		var msg string
		var code Kind
		if err != nil {
			msg, code = err.Error(), err.(*Error).Kind
		}
		if code != c.code || strings.Contains(msg, injectHint) != c.hint {
			t.Errorf("%s: exit %d, message\n%s\nwant exit %d, inject hint %v", c.name, code, msg, c.code, c.hint)
		}
		if lines := strings.Count(msg, "gramc run: "); lines != len(c.problems)+len(c.errs) {
			t.Errorf("%s: %d problem lines in\n%s", c.name, lines, msg)
		}
	}
}

// TestCheckFlags: the flags of the tools and of the recording are
// checked after the bindings file, each problem a usage error naming the
// flag.
func TestCheckFlags(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{}, ""},
		{Options{Tools: []string{"a=echo"}, ToolSchemas: []string{"a=a.json"}}, ""},
		{Options{Record: "r.json", Replay: "p.json"}, "--record and --replay cannot be used together"},
		{Options{Tools: []string{"a"}}, `--tool "a": write NAME=COMMAND`},
		{Options{Tools: []string{" =echo"}}, `--tool " =echo": write NAME=COMMAND`},
		{Options{Tools: []string{"a=echo"}, ToolSchemas: []string{"a="}}, `--tool-schema "a=": write NAME=FILE`},
		{Options{Tools: []string{"a=echo"}, ToolSchemas: []string{"b=b.json"}}, `--tool-schema "b=b.json": there is no --tool b=COMMAND`},
	}
	for _, c := range cases {
		c.o.Cmd, c.o.NoBindings = "gramc run", true
		_, err := Resolve(c.o).Check()
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.o, err)
			}
			continue
		}
		var be *Error
		if !errors.As(err, &be) || be.Kind != Usage || !strings.HasPrefix(be.Msg, "gramc run: "+c.want) {
			t.Errorf("%+v: %v; want a usage error %q", c.o, err, c.want)
		}
	}
}
