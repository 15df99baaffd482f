package runtime_test

import (
	"testing"
	"time"

	"github.com/gramlang/gram/runtime"
)

func TestNewRetryPolicy(t *testing.T) {
	if p := runtime.NewRetryPolicy(nil, 0); p.MaxRetries != 0 || p.Backoff != nil {
		t.Errorf("nothing set: %+v, want the default policy", p)
	}
	zero, three := 0, 3
	if p := runtime.NewRetryPolicy(&zero, 0); p.MaxRetries >= 0 {
		t.Errorf("retries 0: MaxRetries %d, want no retries (negative)", p.MaxRetries)
	}
	p := runtime.NewRetryPolicy(&three, 100*time.Millisecond)
	if p.MaxRetries != 3 || p.Backoff == nil {
		t.Fatalf("retries 3, backoff 100ms: %+v", p)
	}
	for n, want := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		if d := p.Backoff(n); d > want || d < want*3/4 {
			t.Errorf("wait before retry %d: %v, want %v less up to a quarter", n, d, want)
		}
	}
	if d := runtime.DoublingBackoff(20 * time.Second)(3); d > 20*time.Second || d < 15*time.Second {
		t.Errorf("a base above 8s caps the waits at the base: %v", d)
	}
}
