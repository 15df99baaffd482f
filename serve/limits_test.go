package serve

import "testing"

// TestDefaultLimits: the limits without configuration are the defaults,
// each set; a limit given is kept.
func TestDefaultLimits(t *testing.T) {
	want := Limits{MaxBodyBytes: DefaultMaxBodyBytes, MaxHistory: DefaultMaxHistory, MaxConcurrent: DefaultMaxConcurrent,
		MaxQueue: DefaultMaxQueue, QueueTimeout: DefaultQueueTimeout, Timeout: DefaultTimeout, Grace: DefaultGrace,
		ReadTimeout: DefaultReadTimeout, MaxConnections: DefaultMaxConnections}
	if got := DefaultLimits(); got != want {
		t.Errorf("DefaultLimits() = %+v, want %+v", got, want)
	}
	if got := (Limits{MaxHistory: 3, MaxQueue: -1}).withDefaults(); got.MaxHistory != 3 || got.MaxQueue != 0 {
		t.Errorf("given limits: %+v", got)
	}
}
