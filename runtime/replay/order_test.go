package replay_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/replay"
)

// TestReplayOutOfOrder: requests made at the same time may reach the
// replayer in another order than they were recorded in; each gets the
// response recorded for it, and a request that matches no interaction left
// still fails, naming where it differs from the next one.
func TestReplayOutOfOrder(t *testing.T) {
	it := func(req, resp string) replay.Interaction {
		return replay.Interaction{
			Request:  replay.RecordedRequest{Method: "POST", Path: "/v1/chat/completions", Body: json.RawMessage(req)},
			Response: &replay.RecordedResponse{Status: 200, Body: json.RawMessage(resp)},
		}
	}
	r := replay.NewReplayerFrom(replay.Recording{Version: replay.RecordingVersion, Interactions: []replay.Interaction{
		it(`{"agent":"a"}`, `{"answer":"A"}`),
		it(`{"agent":"b"}`, `{"answer":"B"}`),
		it(`{"agent":"c"}`, `{"answer":"C"}`),
	}})
	send := func(body string) (string, error) {
		req, _ := http.NewRequest("POST", "http://model.test/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := r.RoundTrip(req)
		if err != nil {
			return "", err
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	for _, c := range []struct{ req, want string }{
		{`{"agent":"b"}`, `{"answer":"B"}`},
		{`{"agent":"a"}`, `{"answer":"A"}`},
	} {
		got, err := send(c.req)
		if err != nil || got != c.want {
			t.Fatalf("%s answered %q, %v; want %s", c.req, got, err, c.want)
		}
	}
	if n := r.Remaining(); n != 1 {
		t.Errorf("%d interactions remain; want 1", n)
	}
	_, err := send(`{"agent":"b"}`)
	var re *replay.Error
	if !errors.As(err, &re) || re.Index != 3 {
		t.Fatalf("a request replayed already: %v; want a mismatch with interaction 3", err)
	}
	if got, err := send(`{"agent":"c"}`); err != nil || got != `{"answer":"C"}` {
		t.Fatalf("the last request answered %q, %v", got, err)
	}
	if n := r.Remaining(); n != 0 {
		t.Errorf("%d interactions remain; want 0", n)
	}
}
