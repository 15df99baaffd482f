// Tool results with parts of a content type this client does not know. The
// go-sdk refuses a whole result for one part of an unknown type, with an
// unmarshalling error; the result is mended as it is read instead: each
// such part becomes a text part that names its type, and the parts around
// it are kept.

package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// knownContent are the content types the go-sdk reads in a tool result.
var knownContent = map[string]bool{
	"text": true, "image": true, "audio": true, "resource_link": true, "resource": true,
	"tool_use": true, "tool_result": true,
}

// mendResult returns a JSON-RPC result with each content part of an
// unknown type replaced by a text part that says what was left out, or the
// result itself when it has no such part.
func mendResult(result json.RawMessage) json.RawMessage {
	if !bytes.Contains(result, []byte(`"content"`)) {
		return result
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return result
	}
	var parts []json.RawMessage
	if json.Unmarshal(res["content"], &parts) != nil {
		return result
	}
	mended := false
	for i, p := range parts {
		var part struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(p, &part) != nil || knownContent[part.Type] {
			continue
		}
		text := fmt.Sprintf("[a part of the content type %q, which this client cannot read, was left out]", part.Type)
		parts[i], _ = json.Marshal(map[string]string{"type": "text", "text": text})
		mended = true
	}
	if !mended {
		return result
	}
	res["content"], _ = json.Marshal(parts)
	out, err := json.Marshal(res)
	if err != nil {
		return result
	}
	return out
}

// mendMessage returns a JSON-RPC message, given as JSON text, with its
// result mended (see mendResult).
func mendMessage(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"content"`)) {
		return msg
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["result"] == nil {
		return msg
	}
	r := mendResult(m["result"])
	if len(r) == len(m["result"]) && bytes.Equal(r, m["result"]) {
		return msg
	}
	m["result"] = r
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// mendingBody is the body of a streamable HTTP response to a tools/call
// request, with its results mended as they are read: a JSON body whole,
// an event stream line by line.
type mendingBody struct {
	io.ReadCloser
	r      *bufio.Reader
	stream bool
	out    []byte // mended text not read yet
	err    error  // the error after out
}

// newMendingBody mends the body of a response whose Content-Type is an
// event stream when stream is set, JSON otherwise.
func newMendingBody(body io.ReadCloser, stream bool) *mendingBody {
	return &mendingBody{ReadCloser: body, r: bufio.NewReaderSize(body, 64<<10), stream: stream}
}

// Read implements io.Reader.
func (b *mendingBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		b.fill()
	}
	if len(b.out) > 0 {
		n := copy(p, b.out)
		b.out = b.out[n:]
		return n, nil
	}
	return 0, b.err
}

// fill reads the next line of an event stream, or the whole JSON body,
// and mends it.
func (b *mendingBody) fill() {
	if !b.stream {
		data, err := io.ReadAll(b.r)
		if err == nil {
			err = io.EOF
		}
		b.out, b.err = mendMessage(data), err
		return
	}
	line, err := b.r.ReadBytes('\n')
	if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		msg := bytes.TrimSpace(d)
		if mended := mendMessage(msg); !bytes.Equal(mended, msg) {
			line = append(append([]byte("data: "), mended...), '\n')
		}
	}
	b.out, b.err = line, err
}
