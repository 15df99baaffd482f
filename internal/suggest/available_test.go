package suggest

import "testing"

// TestAvailable lists the names, with the closest to the one asked for.
func TestAvailable(t *testing.T) {
	if got := Available("agents", "x", nil); got != "there are no agents" {
		t.Errorf("none: %q", got)
	}
	if got := Available("agents", "helo", []string{"hello", "bye"}); got != `the agents are: hello, bye; did you mean "hello"?` {
		t.Errorf("close: %q", got)
	}
	if got := ClosestOrSwapped("chekc", []string{"check", "fmt"}); got != "check" {
		t.Errorf("swapped: %q", got)
	}
	if got := ClosestOrSwapped("zzzzzz", []string{"check"}); got != "" {
		t.Errorf("far: %q", got)
	}
}
