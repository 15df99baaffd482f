package durable

import (
	"testing"

	"github.com/gramlang/gram/runtime"
)

// TestAfterReplay: the events before the approval_requested of the calls
// waited for, and that one, are dropped; the others are passed on.
func TestAfterReplay(t *testing.T) {
	pending := []runtime.PendingCall{{CallID: "a"}, {CallID: "b"}}
	var got []runtime.EventType
	f := AfterReplay(pending, func(e runtime.Event) { got = append(got, e.Type) })
	f(runtime.Event{Type: runtime.EventToolCallFinished})
	f(runtime.Event{Type: runtime.EventApprovalRequested, Pending: []runtime.PendingCall{{CallID: "a"}, {CallID: "c"}}})
	f(runtime.Event{Type: runtime.EventApprovalRequested, Pending: []runtime.PendingCall{{CallID: "b"}, {CallID: "a"}}})
	f(runtime.Event{Type: runtime.EventToolCallFinished})
	f(runtime.Event{Type: runtime.EventApprovalRequested, Pending: pending})
	if len(got) != 2 || got[0] != runtime.EventToolCallFinished || got[1] != runtime.EventApprovalRequested {
		t.Errorf("passed on %v; want the tool call and the approval after the replay", got)
	}
}

// TestPathSettings: a directory's path is absolute and marked; standard
// input is "-".
func TestPathSettings(t *testing.T) {
	dir := t.TempDir()
	if s := PathSettings(dir); s[SettingPath] != dir || s[SettingDir] != "true" {
		t.Errorf("PathSettings(dir) = %v", s)
	}
	if s := PathSettings("-"); s[SettingPath] != "-" || len(s) != 1 {
		t.Errorf("PathSettings(-) = %v", s)
	}
}
