// Writing the generated file: the layout of the file, and how names,
// strings and properties are written in gram.

package mcpimport

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"

	"github.com/gramlang/gram/schema"
)

// render writes the file: the opening comment, the records, each tool with
// its warnings as comments, and the agent.
func (g *importer) render(decls []importedTool, tools []string) []byte {
	opts := g.opts
	var out strings.Builder
	comment := opts.Comment
	if comment == "" {
		comment = "The tools of an MCP server."
		if opts.Server != "" {
			comment = "The tools of the MCP server " + quoteJSON(opts.Server) + "."
		}
	}
	for _, line := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		out.WriteString(strings.TrimRight("// "+strings.TrimRight(line, "\r"), " ") + "\n")
	}
	for _, r := range g.records {
		out.WriteString("\n" + r + "\n")
	}
	for _, d := range decls {
		out.WriteString("\n")
		for _, w := range d.warnings {
			out.WriteString("// warning: " + clip.OneLine(strings.TrimPrefix(w.String(), fmt.Sprintf("tool %q: ", d.tool.Name))) + "\n")
		}
		out.WriteString(d.decl + "\n")
	}
	if opts.Agent != "" && len(tools) > 0 {
		model := opts.Model
		if model == "" {
			model = DefaultModel
		}
		instr := "Help the user with your tools. Use them to look things up and to act; never guess what they would return."
		fmt.Fprintf(&out, "\n[%s:Agent {\n  model: %s,\n  instruction: %s\n} |\n", ident(opts.Agent), gramString(model), gramString(instr))
		for i, t := range tools {
			sep := ","
			if i == len(tools)-1 {
				sep = ""
			}
			fmt.Fprintf(&out, "  %s%s\n", ident(t), sep)
		}
		out.WriteString("]\n")
	}
	return []byte(out.String())
}

// ident writes an identity: bare when it is a symbol, in backticks
// otherwise.
func ident(s string) string { return gramtext.Name(s) }

// mapKey writes a key of a gram map.
func mapKey(s string) string {
	if gramtext.IsSymbol(s) {
		return s
	}
	return gramtext.Quote(s)
}

// gramString writes a double-quoted gram string.
func gramString(s string) string { return gramtext.Quote(s) }

// writable reports whether s can be written in gram exactly.
func writable(s string) bool {
	for _, r := range s {
		if r < 0x20 && !strings.ContainsRune("\b\f\n\r\t", r) {
			return false
		}
	}
	return true
}

// propsText writes a property record, " {a: 1, b: 2}", or "" for none.
func propsText(props []string) string {
	if len(props) == 0 {
		return ""
	}
	return " {" + strings.Join(props, ", ") + "}"
}

// pascal turns a name into PascalCase: "add_task" gives "AddTask".
func pascal(s string) string {
	var b strings.Builder
	up := true
	prevLower := false
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || r > unicode.MaxASCII {
			up = true
			prevLower = false
			continue
		}
		if up || unicode.IsUpper(r) && prevLower {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(r)
		}
		up = false
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	out := b.String()
	if out != "" && unicode.IsDigit(rune(out[0])) {
		out = "T" + out
	}
	return out
}

// singular names the element of a list named s: "Tasks" gives "Task".
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) > 3:
		return s[:len(s)-1]
	}
	return s + "Item"
}

// stringList returns the strings of a JSON array.
func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// val returns the value of key in s, nil if there is none.
func val(s schema.Object, key string) any {
	v, _ := s.Get(key)
	return v
}

// has reports whether s has the key.
func has(s schema.Object, key string) bool {
	_, ok := s.Get(key)
	return ok
}

// quoteJSON returns s as a JSON string.
func quoteJSON(s string) string {
	b, _ := jsonvalue.Marshal(s)
	return string(b)
}
