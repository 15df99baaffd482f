// Calls of an MCP server's tools, and the reading of their results into
// text, structured content and images.

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
)

// IdempotencyMetaKey is the key of a tool call's _meta that carries the
// idempotency key of a checkpointed call (see [runtime.IdempotencyKey]).
const IdempotencyMetaKey = "io.gram/idempotency-key"

// Call calls the server's tool name with args and returns its result in
// every form it has (see [runtime.ToolResult]): the text of the content, where
// parts other than text are described by kind, MIME type and size; the
// structuredContent as JSON text; the images. [runtime.Run] gives the model the
// structured form when the tool's declaration returns a record type, the
// text otherwise, and shows it the images after the tool messages. A
// result flagged isError is an error whose message is its text. A part of
// a content type this client does not know becomes a text part naming its
// type, the other parts kept. Protocol
// errors, a timeout and a server that stopped are errors too. The
// idempotency key of a checkpointed call goes in the request's _meta
// ([IdempotencyMetaKey]).
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (*runtime.ToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if key := runtime.IdempotencyKey(ctx); key != "" {
		params.Meta = mcp.Meta{IdempotencyMetaKey: key}
	}
	res, err := c.session.CallTool(ctx, params)
	if err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("the MCP server %q did not answer within %v", c.name, c.timeout)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) ||
			errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE):
			e := c.fail("the server is no longer running", err)
			e.quiet = true
			return nil, e
		}
		return nil, fmt.Errorf("the MCP server %q failed: %w", c.name, err)
	}
	out := contentResult(res.Content)
	if res.IsError {
		if out.Text == "" {
			out.Text = "the tool failed without a message"
		}
		return nil, errors.New(out.Text)
	}
	if res.StructuredContent != nil {
		b, err := jsonvalue.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("the structured result cannot be encoded: %w", err)
		}
		out.Structured = json.RawMessage(b)
	}
	return out, nil
}

// contentResult reads a tool result's content: the text parts, joined by
// newlines, a short description of every other part (kind, MIME type,
// size, and the text of an embedded text resource), and the images the
// chat API accepts.
func contentResult(content []mcp.Content) *runtime.ToolResult {
	out := &runtime.ToolResult{}
	parts := make([]string, 0, len(content))
	for _, c := range content {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, x.Text)
		case *mcp.ImageContent:
			desc := fmt.Sprintf("[image: %s, %s", orUnknown(x.MIMEType), byteSize(len(x.Data)))
			if slices.Contains(runtime.ImageMIMETypes, x.MIMEType) {
				out.Images = append(out.Images, runtime.Image{MIMEType: x.MIMEType, Data: x.Data})
				desc += "; shown to you after the tool results"
			}
			parts = append(parts, desc+"]")
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", orUnknown(x.MIMEType), byteSize(len(x.Data))))
		case *mcp.ResourceLink:
			desc := "[resource link: " + x.URI
			var about []string
			if x.Name != "" && x.Name != x.URI {
				about = append(about, fmt.Sprintf("%q", x.Name))
			}
			if x.MIMEType != "" {
				about = append(about, x.MIMEType)
			}
			if x.Size != nil {
				about = append(about, byteSize(int(*x.Size)))
			}
			if len(about) > 0 {
				desc += " (" + strings.Join(about, ", ") + ")"
			}
			if d := strings.TrimSpace(x.Description); d != "" {
				desc += ": " + clip.Text(clip.OneLine(d), 200)
			}
			parts = append(parts, desc+"]")
		case *mcp.EmbeddedResource:
			r := x.Resource
			if r == nil {
				continue
			}
			if r.Blob == nil {
				parts = append(parts, fmt.Sprintf("[embedded resource: %s (%s, %s), its text follows]\n%s", r.URI, orUnknown(r.MIMEType), byteSize(len(r.Text)), r.Text))
			} else {
				parts = append(parts, fmt.Sprintf("[embedded resource: %s (%s, %s)]", r.URI, orUnknown(r.MIMEType), byteSize(len(r.Blob))))
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	out.Text = strings.Join(parts, "\n")
	return out
}

// orUnknown returns the MIME type, or says there is none.
func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// byteSize writes a size in bytes.
func byteSize(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
