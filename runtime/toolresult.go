// Tool results in more than one form: text, a structured JSON value and
// images, as an MCP tool call returns them. The declaration decides which
// form the model gets: a tool declared to return a record (or Object) gets
// the structured value, any other the text. Images reach the model as
// image parts of a user message that follows the tool messages, because
// the Chat Completions API accepts only text in a tool message.

package runtime

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gramlang/gram/schema"
)

// ToolResult is a tool result that has more than one form. An Invoke
// function may return one, or a pointer to one.
type ToolResult struct {
	// Text is the result as text: for an MCP result, its text parts and a
	// short description (kind, MIME type, size) of every other part.
	Text string
	// Structured is the result as a JSON value (an MCP result's
	// structuredContent), or nil. The model gets it instead of Text when
	// the declaration returns a record type or Object, and when Text is
	// empty.
	Structured json.RawMessage
	// Images are images of the result. Text describes them; the model
	// sees them as image parts of a user message after the tool messages.
	Images []Image
}

// Image is an image a tool returned.
type Image struct {
	// MIMEType is the image's type, such as "image/png".
	MIMEType string `json:"mimeType"`
	// Data is the image (base64 in JSON).
	Data []byte `json:"data"`
	// Caption names where the image comes from, for the model.
	Caption string `json:"caption,omitempty"`
}

// ImageMIMETypes are the image types the chat API accepts as image parts.
// Images of other types are described in text only.
var ImageMIMETypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// DataURL returns the image as a data: URL.
func (i Image) DataURL() string {
	return "data:" + i.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(i.Data)
}

// asToolResult returns v as a *ToolResult when it is one.
func asToolResult(v any) *ToolResult {
	switch x := v.(type) {
	case ToolResult:
		return &x
	case *ToolResult:
		return x
	}
	return nil
}

// forSpec returns the form of the result the model gets for spec.
func (r *ToolResult) forSpec(spec *schema.Tool) any {
	if len(r.Structured) > 0 && (r.Text == "" || returnsStructure(spec)) {
		return r.Structured
	}
	return r.Text
}

// returnsStructure reports whether spec returns a record or an Object.
func returnsStructure(spec *schema.Tool) bool {
	return spec != nil && spec.Returns != nil &&
		(spec.Returns.Kind == schema.RecordType || spec.Returns.Kind == schema.ObjectType)
}

// imagesMessage is the user message that shows the model the images of a
// step's tool calls, or false if there are none.
func imagesMessage(uses []ToolUse) (Message, bool) {
	var images []Image
	var lines []string
	for _, u := range uses {
		for _, img := range u.Images {
			img.Caption = fmt.Sprintf("%s (call %s)", u.Name, u.CallID)
			images = append(images, img)
			lines = append(lines, fmt.Sprintf("%d. %s: %s, %d bytes", len(images), img.Caption, img.MIMEType, len(img.Data)))
		}
	}
	if len(images) == 0 {
		return Message{}, false
	}
	text := "The tool calls above returned these images, attached in this order:\n" + strings.Join(lines, "\n")
	return Message{Role: RoleUser, Content: text, Images: images}, true
}
