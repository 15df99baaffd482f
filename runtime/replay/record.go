// Record and replay: HTTP transports that save every request and response
// of a session to a JSON file, and answer from such a file with no network.
// Credentials are never written: credential headers are replaced by
// [Redacted] and the secrets given to the recorder are masked everywhere.
// Headers that change from run to run (user agent, SDK versions, retry
// counts, idempotency keys, dates) are left out so recordings are stable.

package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/jsonvalue"
)

// RecordingVersion is the version of the recording format.
const RecordingVersion = 1

// Recording is the content of a record/replay file.
type Recording struct {
	// Version is [RecordingVersion].
	Version int `json:"version"`
	// Interactions are the requests and responses in the order they were
	// made.
	Interactions []Interaction `json:"interactions"`
}

// Interaction is one HTTP exchange.
type Interaction struct {
	Request  RecordedRequest   `json:"request"`
	Response *RecordedResponse `json:"response,omitempty"`
	// Error is the transport error, when there was no response.
	Error string `json:"error,omitempty"`
}

// RecordedRequest is a request as recorded.
type RecordedRequest struct {
	Method string `json:"method"`
	// Path is the URL's path and query; the host is not recorded.
	Path   string      `json:"path"`
	Header http.Header `json:"header,omitempty"`
	// Body is a JSON body; BodyText any other body.
	Body     json.RawMessage `json:"body,omitempty"`
	BodyText string          `json:"bodyText,omitempty"`
}

// RecordedResponse is a response as recorded.
type RecordedResponse struct {
	Status   int             `json:"status"`
	Header   http.Header     `json:"header,omitempty"`
	Body     json.RawMessage `json:"body,omitempty"`
	BodyText string          `json:"bodyText,omitempty"`
	// BodyError is the error that cut a streamed body short, after the
	// bytes recorded.
	BodyError string `json:"bodyError,omitempty"`
}

// volatileHeader reports headers left out of recordings.
func volatileHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "user-agent", "idempotency-key", "content-length", "accept-encoding", "date":
		return true
	}
	return strings.HasPrefix(n, "x-stainless-")
}

// recordHeaders returns the recorded form of h.
func recordHeaders(h http.Header, r Redactor) http.Header {
	out := http.Header{}
	for k, vs := range redactHeaders(h, r) {
		if !volatileHeader(k) {
			out[k] = vs
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// setBody stores a body as JSON when it is JSON, as text otherwise.
func setBody(b []byte, body *json.RawMessage, text *string) {
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	if json.Valid(b) {
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			*body = buf.Bytes()
			return
		}
	}
	*text = string(b)
}

// bodyBytes returns a recorded body.
func bodyBytes(body json.RawMessage, text string) []byte {
	if len(body) > 0 {
		return body
	}
	return []byte(text)
}

// readRequestBody reads a request's body and leaves it readable.
func readRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err == nil {
			defer rc.Close()
			return io.ReadAll(rc)
		}
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// Recorder is an http.RoundTripper that passes requests to Next and saves
// every exchange to a file, rewritten after each one so an interrupted
// session keeps what it did. It is safe for concurrent use.
type Recorder struct {
	path   string
	next   http.RoundTripper
	redact Redactor

	mu  sync.Mutex
	rec Recording
}

// NewRecorder returns a recorder writing to path through next (nil means
// http.DefaultTransport). The secrets (API keys) are masked wherever they
// appear.
func NewRecorder(path string, next http.RoundTripper, secrets ...string) *Recorder {
	if next == nil {
		next = http.DefaultTransport
	}
	return &Recorder{path: path, next: next, redact: NewRedactor(secrets...),
		rec: Recording{Version: RecordingVersion, Interactions: []Interaction{}}}
}

// Recording returns a copy of what has been recorded.
func (r *Recorder) Recording() Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Recording{Version: r.rec.Version, Interactions: slices.Clone(r.rec.Interactions)}
}

// RoundTrip implements http.RoundTripper.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	reqBody, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	it := Interaction{Request: RecordedRequest{
		Method: req.Method,
		Path:   r.redact.String(req.URL.RequestURI()),
		Header: recordHeaders(req.Header, r.redact),
	}}
	setBody(r.redact.Bytes(reqBody), &it.Request.Body, &it.Request.BodyText)
	resp, rtErr := r.next.RoundTrip(req)
	if rtErr != nil {
		it.Error = r.redact.String(rtErr.Error())
	} else if IsEventStream(resp) {
		return r.recordStream(it, resp), nil
	} else {
		respBody, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(respBody))
		rr := &RecordedResponse{Status: resp.StatusCode, Header: recordHeaders(resp.Header, r.redact)}
		setBody(r.redact.Bytes(respBody), &rr.Body, &rr.BodyText)
		it.Response = rr
	}
	if err := r.append(it); err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	return resp, rtErr
}

// append adds an interaction and rewrites the file; a file that cannot be
// written is a [*WriteError].
func (r *Recorder) append(it Interaction) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.Interactions = append(r.rec.Interactions, it)
	if err := WriteRecording(r.path, r.rec); err != nil {
		return &WriteError{Path: r.path, Err: err}
	}
	return nil
}

// WriteRecording writes rec to path as indented JSON, replacing the file
// atomically.
func WriteRecording(path string, rec Recording) error {
	b, err := MarshalRecording(rec)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("recording: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("recording: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("recording: %w", err)
	}
	return nil
}

// MarshalRecording returns rec as indented JSON with a final newline.
func MarshalRecording(rec Recording) ([]byte, error) {
	var b bytes.Buffer
	if err := jsonvalue.WriteIndented(&b, rec); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ReadRecording reads a recording file. Only a regular file of at most
// limit bytes is read (256 MB when limit is 0 or less): a device such as
// /dev/zero, or a link to one, is refused rather than read forever. A
// byte order mark at the start, which some editors write when they save
// JSON, is skipped.
func ReadRecording(path string, limit int64) (Recording, error) {
	b, err := inputfile.Read(path, limit)
	if err != nil {
		return Recording{}, err
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	var rec Recording
	if err := json.Unmarshal(b, &rec); err != nil {
		return Recording{}, fmt.Errorf("%s is not a recording: %w", path, err)
	}
	if rec.Version != RecordingVersion {
		return Recording{}, fmt.Errorf("%s is a recording of version %d; this gramc reads version %d", path, rec.Version, RecordingVersion)
	}
	return rec, nil
}

// Error is a request a [Replayer] cannot answer: it differs from the
// recorded one, or the recording has no more requests.
type Error struct {
	// Index is the request's number in the session, from 1.
	Index int
	// Method and Path identify the request.
	Method, Path string
	// Pointer is the JSON pointer in the request body where it first
	// differs from the recording ("" when the method, path or count
	// differ).
	Pointer string
	// Detail says what differs.
	Detail string
}

// Error says which request differs and where.
func (e *Error) Error() string {
	s := fmt.Sprintf("replay: request %d (%s %s) ", e.Index, e.Method, e.Path)
	if e.Pointer != "" {
		return s + "differs from the recording at " + e.Pointer + ": " + e.Detail
	}
	return s + e.Detail
}

// MalformedError is an interaction of a recording that no session could
// have recorded: no response and no error, a status that is not one, a
// Content-Type its body or its request cannot have, or a failed answer
// that is retried without the retry after it. The recording was edited or
// cut, not the agent or its tools changed.
type MalformedError struct {
	// File is the recording's path, "" when it was not read from a file.
	File string
	// Interaction is the interaction's number, from 1.
	Interaction int
	// Detail says what is wrong with it.
	Detail string
}

// Error names the recording and the interaction.
func (e *MalformedError) Error() string {
	name := "the recording"
	if e.File != "" {
		name += " " + e.File
	}
	return fmt.Sprintf("replay: %s is malformed: interaction %d %s; fix it or record the session again", name, e.Interaction, e.Detail)
}

// WriteError is a recording that could not be written (a full disk, a
// directory gone): the session goes on unrecorded no further.
type WriteError struct {
	// Path is the recording's path.
	Path string
	// Err is the cause.
	Err error
}

// Error names the recording and the cause.
func (e *WriteError) Error() string {
	return fmt.Sprintf("the recording %s could not be written: %v", e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *WriteError) Unwrap() error { return e.Err }

// Replayer is an http.RoundTripper that answers from a [Recording], with
// no network: the n-th request must match the n-th recorded one (method,
// path and JSON body, compared as JSON values), and gets its recorded
// response. Requests made at the same time (the sub-agents a model called
// in one reply) may come in another order than they were recorded in: a
// request that differs from the next recorded one takes the first later
// one not replayed yet that it matches. A request that matches none fails
// with a [*Error] saying where it differs from the next; an interaction no
// session could have recorded fails with a [*MalformedError]. It is safe
// for concurrent use.
type Replayer struct {
	mu   sync.Mutex
	file string
	rec  Recording
	// next is the first interaction not replayed; used marks those after
	// it replayed out of order.
	next int
	used map[int]bool
}

// NewReplayer returns a replayer for the recording in the file at path,
// read within limit as [ReadRecording] reads it.
func NewReplayer(path string, limit int64) (*Replayer, error) {
	rec, err := ReadRecording(path, limit)
	if err != nil {
		return nil, err
	}
	return &Replayer{file: path, rec: rec}, nil
}

// NewReplayerFrom returns a replayer for rec.
func NewReplayerFrom(rec Recording) *Replayer { return &Replayer{rec: rec} }

// Remaining returns the number of recorded interactions not replayed yet.
func (r *Replayer) Remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.rec.Interactions) - r.next - len(r.used)
}

// RoundTrip implements http.RoundTripper.
func (r *Replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	if req.Body != nil {
		req.Body.Close()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rerr := &Error{Index: r.next + 1, Method: req.Method, Path: req.URL.RequestURI()}
	if r.next >= len(r.rec.Interactions) {
		if err := r.unretried(req, body); err != nil {
			return nil, err
		}
		rerr.Detail = fmt.Sprintf("is not in the recording, which has only %d requests", len(r.rec.Interactions))
		return nil, rerr
	}
	// What every recording masks (key-like tokens, URL credentials) is
	// masked in the request too, so that a tool's output holding some
	// matches its recording.
	masked := Redactor{}.Bytes(body)
	it := r.rec.Interactions[r.next]
	if it.Request.Method != req.Method || it.Request.Path != req.URL.RequestURI() {
		if i, ok := r.later(req, masked); ok {
			return r.replay(req, i)
		}
		if err := r.unretried(req, body); err != nil {
			return nil, err
		}
		rerr.Detail = fmt.Sprintf("differs from the recording, which has %s %s", it.Request.Method, it.Request.Path)
		return nil, rerr
	}
	if ptr, detail, ok := diffBodies(bodyBytes(it.Request.Body, it.Request.BodyText), masked); !ok {
		if i, ok := r.later(req, masked); ok {
			return r.replay(req, i)
		}
		if err := r.unretried(req, body); err != nil {
			return nil, err
		}
		rerr.Pointer, rerr.Detail = ptr, detail
		return nil, rerr
	}
	return r.replay(req, r.next)
}

// later returns the first interaction after the next one, not replayed
// yet, whose request is req with the body masked.
func (r *Replayer) later(req *http.Request, masked []byte) (int, bool) {
	for i := r.next + 1; i < len(r.rec.Interactions); i++ {
		it := r.rec.Interactions[i]
		if r.used[i] || it.Request.Method != req.Method || it.Request.Path != req.URL.RequestURI() {
			continue
		}
		if _, _, ok := diffBodies(bodyBytes(it.Request.Body, it.Request.BodyText), masked); ok {
			return i, true
		}
	}
	return 0, false
}

// replay answers req with interaction i, which it marks replayed.
func (r *Replayer) replay(req *http.Request, i int) (*http.Response, error) {
	it := r.rec.Interactions[i]
	if i == r.next {
		for r.next++; r.used[r.next]; r.next++ {
			delete(r.used, r.next)
		}
	} else {
		if r.used == nil {
			r.used = map[int]bool{}
		}
		r.used[i] = true
	}
	if detail := malformed(it); detail != "" {
		return nil, &MalformedError{File: r.file, Interaction: i + 1, Detail: detail}
	}
	if it.Response == nil {
		return nil, errors.New("replayed transport error: " + it.Error)
	}
	b := bodyBytes(it.Response.Body, it.Response.BodyText)
	h := it.Response.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	return &http.Response{
		Status:        strconv.Itoa(it.Response.Status) + " " + http.StatusText(it.Response.Status),
		StatusCode:    it.Response.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          replayBody(it.Response, b),
		ContentLength: int64(len(b)),
		Request:       req,
	}, nil
}

// unretried returns the [*MalformedError] of a request that does not match
// the next interaction but repeats the last one replayed, whose answer was
// a failure that is retried: the recording lacks the retry that a session
// records after such a failure. It returns nil otherwise.
func (r *Replayer) unretried(req *http.Request, body []byte) error {
	if r.next == 0 {
		return nil
	}
	last := r.rec.Interactions[r.next-1]
	if last.Request.Method != req.Method || last.Request.Path != req.URL.RequestURI() || malformed(last) != "" {
		return nil
	}
	if _, _, same := diffBodies(bodyBytes(last.Request.Body, last.Request.BodyText), Redactor{}.Bytes(body)); !same {
		return nil
	}
	var what string
	switch resp := last.Response; {
	case resp == nil:
		what = "failed (" + last.Error + ")"
	case resp.Status == http.StatusRequestTimeout || resp.Status == http.StatusConflict ||
		resp.Status == http.StatusTooManyRequests || resp.Status >= 500:
		what = fmt.Sprintf("answered %d %s", resp.Status, http.StatusText(resp.Status))
	default:
		return nil
	}
	return &MalformedError{File: r.file, Interaction: r.next,
		Detail: what + ", which is retried, but the recording has no retry after it"}
}

// malformed says what makes a recorded interaction one no session could
// have recorded, or returns "".
func malformed(it Interaction) string {
	resp := it.Response
	if resp == nil {
		if it.Error == "" {
			return "has neither a response nor an error"
		}
		return ""
	}
	if resp.Status < 100 || resp.Status > 599 {
		return fmt.Sprintf("has the status %d, which is not an HTTP status", resp.Status)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return ""
	}
	ct := resp.Header.Get("Content-Type")
	stream := IsEventStream(&http.Response{Header: resp.Header})
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(it.Request.Body, &req)
	switch {
	case stream && len(resp.Body) > 0:
		return "has the Content-Type " + ct + ", but its body is JSON"
	case stream && !req.Stream:
		return "is an event stream (Content-Type " + ct + "), but its request did not ask for one"
	case !stream && strings.HasPrefix(strings.TrimSpace(resp.BodyText), "data:"):
		if ct == "" {
			ct = "missing"
		}
		return "has a body that is an event stream, but its Content-Type is " + ct
	}
	return ""
}

// diffBodies compares a recorded body with a request's: as JSON values
// when both are JSON, as text otherwise. It returns where they first differ.
func diffBodies(recorded, got []byte) (ptr, detail string, same bool) {
	a, err1 := jsonvalue.Decode(recorded)
	b, err2 := jsonvalue.Decode(got)
	if len(bytes.TrimSpace(recorded)) == 0 && len(bytes.TrimSpace(got)) == 0 {
		return "", "", true
	}
	if err1 != nil || err2 != nil {
		if bytes.Equal(recorded, got) {
			return "", "", true
		}
		return "", "has a different body", false
	}
	if d, ok := jsonvalue.Diff(a, b); ok {
		p := d.Pointer
		if p == "" {
			p = "/"
		}
		return p, describeDiff(d), false
	}
	return "", "", true
}

// describeDiff says how a request's body differs from the recorded one
// at one place.
func describeDiff(d jsonvalue.Difference) string {
	_, aObj := d.A.(map[string]any)
	_, bObj := d.B.(map[string]any)
	al, aList := d.A.([]any)
	bl, bList := d.B.([]any)
	switch {
	case !d.InB:
		return "recorded " + short(d.A) + ", got nothing"
	case !d.InA:
		return "recorded nothing, got " + short(d.B)
	case aObj && !bObj:
		return "recorded an object, got " + short(d.B)
	case aList && !bList:
		return "recorded an array, got " + short(d.B)
	case aList && bList:
		return fmt.Sprintf("recorded %d items, got %d", len(al), len(bl))
	}
	return "recorded " + short(d.A) + ", got " + short(d.B)
}

// short returns a value as JSON, cut to a readable length.
func short(v any) string {
	s := jsonvalue.Compact(v)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}
