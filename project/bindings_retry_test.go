package project

import (
	"strings"
	"testing"
	"time"
)

func TestParseBindingsRetry(t *testing.T) {
	b, diags := parseBindings(t, `{kind: "bindings"}
(:Model {agent: "helper", retries: 3, backoff: 250ms})
(:Model {agent: "writer", retries: 0, fallback: ["Anthropic/claude-haiku-4-5"]})
(:Model {agent: "slow", backoff: "2s"})
`)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	got := b.Retries
	if r := got["helper"]; r.Retries == nil || *r.Retries != 3 || r.Backoff != 250*time.Millisecond {
		t.Errorf("helper: %+v", r)
	}
	if r := got["writer"]; r.Retries == nil || *r.Retries != 0 || r.Backoff != 0 {
		t.Errorf("writer: %+v", r)
	}
	if r := got["slow"]; r.Retries != nil || r.Backoff != 2*time.Second {
		t.Errorf("slow: %+v", r)
	}
	if len(got) != 3 || len(b.Fallbacks["writer"]) != 1 || len(b.Models) != 0 {
		t.Errorf("retries %+v, fallbacks %+v, models %+v", got, b.Fallbacks, b.Models)
	}
}

func TestParseBindingsRetryProblems(t *testing.T) {
	src := `{kind: "bindings"}
(:Model {agent: "a", retries: 11})
(:Model {agent: "b", retries: "3"})
(:Model {agent: "c", retries: -1})
(:Model {agent: "d", backoff: "soon"})
(:Model {agent: "e", backoff: 0s})
(:Model {agent: "f", backoff: 2m})
(:Model {retries: 2})
`
	b, diags := parseBindings(t, src)
	if len(b.Models)+len(b.Fallbacks)+len(b.Retries) != 0 {
		t.Errorf("models kept: %+v", b.AgentModels)
	}
	var got []string
	for _, d := range diags {
		got = append(got, src[d.Span.Start:d.Span.End]+": "+d.Message)
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"11: retries must be an integer from 0 to 10",
		`"3": retries must be an integer from 0 to 10`,
		"-1: retries must be an integer from 0 to 10",
		`"soon": backoff must be a duration above 0 and at most 1m0s`,
		"0s: backoff must be a duration above 0",
		"2m: backoff must be a duration above 0 and at most 1m0s",
		"the Model binding needs agent",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no diagnostic %q in:\n%s", want, text)
		}
	}
}
