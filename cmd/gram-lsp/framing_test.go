package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestFramingNeverSilent: bad Content-Length headers are reported on
// standard error (the editor's log) and answered; the session goes on to
// the end of the input, and the exit says why it ended.
func TestFramingNeverSilent(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	for name, input := range map[string]string{
		"too short":    "Content-Length: 10\r\n\r\n" + body,
		"not a number": "Content-Length: ten\r\n\r\n" + body,
		"missing":      "Content-Type: application/vscode-jsonrpc\r\n\r\n" + body,
		"negative":     "Content-Length: -1\r\n\r\n" + body,
		"huge":         "Content-Length: 999999999999\r\n\r\n" + body,
		"cut short":    "Content-Length: 500\r\n\r\n" + body,
	} {
		var out, errs bytes.Buffer
		code := Main(context.Background(), nil, strings.NewReader(input), &out, &errs)
		if code != 1 {
			t.Errorf("%s: exit %d", name, code)
		}
		if errs.Len() == 0 {
			t.Errorf("%s: nothing on standard error", name)
		}
		if name != "cut short" && !strings.Contains(errs.String(), "framing error") && !strings.Contains(errs.String(), "invalid message") {
			t.Errorf("%s: stderr does not name the problem:\n%s", name, errs.String())
		}
		if name == "cut short" && !strings.Contains(errs.String(), "reading its messages failed") {
			t.Errorf("%s: stderr:\n%s", name, errs.String())
		}
		if !strings.Contains(out.String(), `"code":-32700`) && name != "cut short" {
			t.Errorf("%s: no ParseError reply:\n%s", name, out.String())
		}
	}
}
