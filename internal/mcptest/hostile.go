// Servers that misbehave, for tests of the client's defences: each speaks
// just enough JSON-RPC, by hand, to go wrong at one step of a session.

package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Hostile modes: how a [Hostile] server misbehaves.
const (
	// HostileSilent reads requests and answers none.
	HostileSilent = "silent"
	// HostileWrongID answers initialize with an id the client never used.
	HostileWrongID = "wrong-id"
	// HostileInitError answers initialize with a JSON-RPC error.
	HostileInitError = "init-error"
	// HostileInitMalformed answers initialize with a result that is not an
	// initialize result.
	HostileInitMalformed = "init-malformed"
	// HostileNoList completes the handshake and never answers tools/list.
	HostileNoList = "no-list"
	// HostileCursorLoop lists one tool per page, with a nextCursor that
	// comes back after two pages.
	HostileCursorLoop = "cursor-loop"
	// HostileCursorEndless lists one tool per page, with a new nextCursor
	// on every page, without end.
	HostileCursorEndless = "cursor-endless"
	// HostileToolFlood lists 1000 tools per page, with a new nextCursor on
	// every page, without end.
	HostileToolFlood = "tool-flood"
	// HostileSlowPages lists one tool per page, each page 20ms after it
	// is asked for, with a new nextCursor on every page, without end.
	HostileSlowPages = "slow-pages"
	// HostileBuiltinName lists the tools sayHello, named like a built-in
	// tool, and show.
	HostileBuiltinName = "builtin-name"
	// HostileHologram lists the tool show, whose result has a part of an
	// unknown content type between two text parts, and the tool
	// unresolved, whose inputSchema has a reference to nothing.
	HostileHologram = "hologram"
)

// HostileModes lists the modes of [Hostile].
var HostileModes = []string{HostileSilent, HostileWrongID, HostileInitError, HostileInitMalformed, HostileNoList, HostileCursorLoop,
	HostileCursorEndless, HostileToolFlood, HostileSlowPages, HostileBuiltinName, HostileHologram}

// Hostile runs a server over in and out that misbehaves as mode says, until
// in ends; it returns the exit code (2 for an unknown mode).
func Hostile(mode string, in io.Reader, out, stderr io.Writer) int {
	if !slices.Contains(HostileModes, mode) {
		fmt.Fprintf(stderr, "mcp-hostile-server: unknown mode %q\n", mode)
		return 2
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var req hostileRequest
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification or a response
		}
		if reply := hostileReply(mode, req.ID, req.Method, req.Params.Cursor); reply != "" {
			fmt.Fprintln(out, reply)
		}
	}
	return 0
}

// hostileRequest is what a hostile server reads of a message.
type hostileRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Cursor string `json:"cursor"`
	} `json:"params"`
}

// hostileReply returns the line that answers a request, or "" for none.
func hostileReply(mode string, id json.RawMessage, method, cursor string) string {
	result := func(r string) string { return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + r + `}` }
	rpcError := func(code int, msg string) string {
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(msg) + `}}`
	}
	const initResult = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`
	const tool = `{"name":%q,"inputSchema":{"type":"object","properties":{},"additionalProperties":false}}`
	const unresolved = `{"name":"unresolved","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/nowhere"}}}}`
	if mode == HostileSilent {
		return ""
	}
	switch method {
	case "initialize":
		switch mode {
		case HostileWrongID:
			return `{"jsonrpc":"2.0","id":"not-yours","result":` + initResult + `}`
		case HostileInitError:
			return rpcError(-32603, "the database is offline")
		case HostileInitMalformed:
			return result(`"ready"`)
		}
		return result(initResult)
	case "tools/list":
		switch mode {
		case HostileNoList:
			return ""
		case HostileCursorLoop:
			next := map[string]string{"": "page-2", "page-2": "page-3", "page-3": "page-2"}[cursor]
			return result(`{"tools":[` + fmt.Sprintf(tool, "tool_"+strconv.Itoa(len(cursor))) + `],"nextCursor":"` + next + `"}`)
		case HostileCursorEndless, HostileToolFlood, HostileSlowPages:
			return result(endlessPage(mode, cursor))
		case HostileBuiltinName:
			return result(`{"tools":[` + fmt.Sprintf(tool, "sayHello") + `,` + fmt.Sprintf(tool, "show") + `]}`)
		case HostileHologram:
			return result(`{"tools":[` + fmt.Sprintf(tool, "show") + `,` + unresolved + `]}`)
		}
		return result(`{"tools":[]}`)
	case "tools/call":
		return result(`{"content":[{"type":"text","text":"before"},{"type":"hologram","data":"3d"},{"type":"text","text":"after"}]}`)
	}
	return rpcError(-32601, "method not found: "+method)
}

// endlessPage returns the page of an endless tool list after cursor
// ("page-N"): a tool, or 1000 for HostileToolFlood, and the cursor of the
// next page, 20ms late for HostileSlowPages.
func endlessPage(mode, cursor string) string {
	n, _ := strconv.Atoi(strings.TrimPrefix(cursor, "page-"))
	count := 1
	switch mode {
	case HostileToolFlood:
		count = 1000
	case HostileSlowPages:
		time.Sleep(20 * time.Millisecond)
	}
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range count {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d_%d","inputSchema":{"type":"object"}}`, n, i)
	}
	fmt.Fprintf(&b, `],"nextCursor":"page-%d"}`, n+1)
	return b.String()
}

// HostileHTTP is a streamable HTTP endpoint that misbehaves as mode says
// (one of the modes of [Hostile]), answering each request with a JSON body,
// or with the headers of an event stream and then nothing when the mode
// has no answer, until the client gives up.
func HostileHTTP(mode string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no event stream here", http.StatusMethodNotAllowed)
			return
		}
		var req hostileRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		reply := hostileReply(mode, req.ID, req.Method, req.Params.Cursor)
		if reply == "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, reply)
	})
}
