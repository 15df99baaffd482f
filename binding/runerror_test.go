package binding

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
)

// TestRunErrorKind: a run's error gives the exit code of its kind, a
// configuration error its hint too.
func TestRunErrorKind(t *testing.T) {
	cases := []struct {
		err  error
		kind Kind
		hint string
	}{
		{errors.New("the model failed"), Failed, ""},
		{fmt.Errorf("run: %w", &runtime.ConfigError{Message: "no key", Hint: "set KEY"}), Config, "  hint: set KEY"},
		{&runtime.ConfigError{Message: "no key"}, Config, ""},
		{&runtime.ValidationError{Field: "input", Message: "too long"}, Usage, ""},
		{&replay.WriteError{Path: "r.json", Err: errors.New("disk full")}, Usage, ""},
	}
	for _, c := range cases {
		if kind, hint := RunErrorKind(c.err); kind != c.kind || hint != c.hint {
			t.Errorf("RunErrorKind(%v) = %d, %q; want %d, %q", c.err, kind, hint, c.kind, c.hint)
		}
	}
}
