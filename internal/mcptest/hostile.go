// Servers that misbehave, for tests of the client's defences: each speaks
// just enough JSON-RPC, by hand, to go wrong at one step of a session.

package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
	// HostileHologram lists the tool show, whose result has a part of an
	// unknown content type between two text parts.
	HostileHologram = "hologram"
)

// Hostile runs a server over in and out that misbehaves as mode says, until
// in ends; it returns the exit code (2 for an unknown mode).
func Hostile(mode string, in io.Reader, out, stderr io.Writer) int {
	switch mode {
	case HostileSilent, HostileWrongID, HostileInitError, HostileInitMalformed, HostileNoList, HostileCursorLoop, HostileHologram:
	default:
		fmt.Fprintf(stderr, "mcp-hostile-server: unknown mode %q\n", mode)
		return 2
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification or a response
		}
		if reply := hostileReply(mode, req.ID, req.Method, req.Params.Cursor); reply != "" {
			fmt.Fprintln(out, reply)
		}
	}
	return 0
}

// hostileReply returns the line that answers a request, or "" for none.
func hostileReply(mode string, id json.RawMessage, method, cursor string) string {
	result := func(r string) string { return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + r + `}` }
	rpcError := func(code int, msg string) string {
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(msg) + `}}`
	}
	const initResult = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`
	const tool = `{"name":%q,"inputSchema":{"type":"object","properties":{},"additionalProperties":false}}`
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
		case HostileHologram:
			return result(`{"tools":[` + fmt.Sprintf(tool, "show") + `]}`)
		}
		return result(`{"tools":[]}`)
	case "tools/call":
		return result(`{"content":[{"type":"text","text":"before"},{"type":"hologram","data":"3d"},{"type":"text","text":"after"}]}`)
	}
	return rpcError(-32601, "method not found: "+method)
}

// HangingHTTP is a streamable HTTP endpoint that answers every request with
// the headers of an event stream and then nothing, until the client gives
// up.
func HangingHTTP() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		<-r.Context().Done()
	})
}
