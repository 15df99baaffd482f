package schema

import (
	"fmt"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// Compiling Agent declarations: their properties, model and tools.

// agent compiles an agent declaration and adds it to the program.
func (c *compiler) agent(d decl) {
	p := d.p
	a := &Agent{Name: p.Subject.Identity, Span: p.Span(), NameSpan: p.IdentSpan(), Settings: DefaultSettings(), Props: props(&p.Subject)}
	c.prog.Agents = append(c.prog.Agents, a)
	c.agentPats[a] = p
	if els := elements(p); len(els) > 0 {
		a.addAt, a.addSep = els[len(els)-1].Span().End, ",\n  "
	} else if p.Kind == parser.GroupKind && p.Span().Len() > 0 {
		a.addAt, a.addSep = p.Span().End-1, " | "
	}
	if a.Name == "" {
		c.unnamed(d, "agent", "[my_agent:Agent {...} | tools]")
	}
	c.agentSettings(a, d)
	c.agentTools(a, p)
}

// agentSettings compiles the properties of an agent declaration: its
// instruction, model and settings.
func (c *compiler) agentSettings(a *Agent, d decl) {
	p := d.p
	where := "an agent"
	var hasModel, hasInstruction bool
	for i := range p.Subject.Properties {
		pr := &p.Subject.Properties[i]
		switch pr.Key {
		case "description":
			a.Description, _ = c.str(pr)
		case "instruction":
			hasInstruction = true
			if s, ok := c.nonBlank(pr, CodeMissingInstruction, fmt.Sprintf("the instruction of agent %s is empty", disp(a.Name)),
				"write the system prompt the model receives, e.g. instruction: \"You are a helpful assistant.\""); ok {
				a.Instruction = s
			}
		case "model":
			hasModel = true
			c.model(a, pr)
		case "maxIterations":
			if n, ok := c.integer(pr, 1, 10); ok {
				a.Settings.MaxIterations = n
			}
		case "temperature":
			if f, ok := c.number(pr, 0, 2); ok {
				a.Settings.Temperature = &f
			}
		case "maxTokens":
			if n, ok := c.integer(pr, 1, 1024); ok {
				a.Settings.MaxTokens = n
			}
		case "timeout":
			if t, ok := c.duration(pr); ok {
				a.Settings.Timeout = t
			}
		case "parallelToolCalls":
			if b, ok := c.boolean(pr); ok {
				a.Settings.ParallelToolCalls = b
			}
		default:
			c.unknownProp(pr, where, agentProps)
		}
	}
	if !hasInstruction {
		dg := diag.Errorf(CodeMissingInstruction, headSpan(d), "agent %s has no instruction", disp(a.Name))
		dg.Detail = "add the system prompt to its record: {instruction: \"You are a helpful assistant.\", ...}"
		c.diags.Add(dg)
	}
	if !hasModel {
		dg := diag.Errorf(CodeMissingModel, headSpan(d), "agent %s has no model", disp(a.Name))
		dg.Detail = "add one to its record, written Provider/model-id: {model: \"OpenAI/gpt-4o-mini\", ...}"
		c.diags.Add(dg)
	}
}

// agentTools compiles the elements of an agent declaration, its tools: the
// tools written inline and the references to tools defined at the top
// level, each once.
func (c *compiler) agentTools(a *Agent, p *parser.Pattern) {
	// Inline tools first, so that a reference may come before the tool.
	for _, e := range p.Elements {
		if e.Kind == parser.GroupKind && isToolPattern(e) {
			if ed, ok := c.declOf(e); ok && ed.label == ToolLabel {
				c.tools[e] = c.tool(ed, false)
			}
		}
	}
	seen := map[string]*Tool{}
	seenSpan := map[string]diag.Span{}
	for _, e := range p.Elements {
		var t *Tool
		switch {
		case e.Kind == parser.GroupKind && isToolPattern(e):
			if t = c.tools[e]; t == nil {
				ed, _ := c.declOfQuiet(e)
				c.notATool(e, ed.label)
				continue
			}
		case e.Kind == parser.ReferenceKind:
			if e.Def == nil {
				continue // undefined: reported by the parser
			}
			t = c.tools[e.Def]
			if t == nil {
				dg := diag.Errorf(CodeInvalidAgentElement, e.Span(), "%s is not a tool", e.Subject.Identity)
				dg.Detail = "an agent's elements are tools: refer to a [name:Tool {...} | signature] defined at the top level, or write one here"
				dg.Related = []diag.Related{{Span: e.Def.IdentSpan(), Message: "definition of " + e.Subject.Identity}}
				c.diags.Add(dg)
				continue
			}
		default:
			label := ""
			if ed, ok := c.declOf(e); ok {
				label = ed.label
			}
			c.notATool(e, label)
			continue
		}
		c.used[t] = true
		span := e.IdentSpan()
		if span.Len() == 0 {
			span = e.Span()
		}
		if first, dup := seen[t.Name]; dup && t.Name != "" {
			if first == t {
				dg := diag.Errorf(CodeDuplicateTool, span, "agent %s lists the tool %s twice", disp(a.Name), disp(t.Name))
				dg.Detail = "tool names are unique within an agent: remove this one"
				dg.Related = []diag.Related{{Span: seenSpan[t.Name], Message: "first use of " + t.Name}}
				c.diags.Add(dg)
			} // two definitions of one name are reported by fileChecks
			continue
		}
		seen[t.Name], seenSpan[t.Name] = t, span
		a.Tools = append(a.Tools, t)
	}
}

// notTools says, for each label of an element an agent cannot hold, what
// is wrong and the remedy.
var notTools = map[string][2]string{
	AgentLabel:  {"an agent cannot contain another agent", "define each agent at the top level of the file"},
	TestLabel:   {"an agent cannot contain a test", "define the test at the top level of the file, or in a *_test.gram file beside it, with {agent: name}"},
	RecordLabel: {"an agent cannot contain a record", "define the record at the top level of the file, where every tool can use it"},
	ToolLabel:   {"an inline tool is written in brackets", "write [name:Tool {description: \"...\"} | (param::String)==>(::String)]"},
	"": {"an agent's elements must be tools",
		"write an inline [name:Tool {description: \"...\"} | signature], or the name of a tool defined at the top level"},
}

// notATool reports an agent element that is not a tool.
func (c *compiler) notATool(e *parser.Pattern, label string) {
	why, ok := notTools[label]
	if !ok {
		why = notTools[""]
	}
	dg := diag.Errorf(CodeInvalidAgentElement, e.Span(), "%s", why[0])
	dg.Detail = why[1]
	c.diags.Add(dg)
}

// model decodes an agent's model, "Provider/model-id".
func (c *compiler) model(a *Agent, pr *parser.Property) {
	s, ok := c.str(pr)
	if !ok {
		return
	}
	a.Model.Span = pr.Value.Span()
	i := strings.IndexByte(s, '/')
	if i <= 0 || i == len(s)-1 {
		dg := diag.Errorf(CodeInvalidModel, pr.Value.Span(), "model %q is not written Provider/model-id", s)
		dg.Detail = "write e.g. model: \"OpenAI/gpt-4o-mini\" or \"Ollama/llama3.2\"; the providers are OpenAI, Ollama and OpenAICompatible"
		c.diags.Add(dg)
		return
	}
	prov, id := s[:i], s[i+1:]
	a.Model.Provider, a.Model.ID = Provider(prov), id
	for _, p := range Providers {
		if string(p) == prov {
			return
		}
	}
	span := stringSpan(pr.Value, 0, i)
	dg := diag.Errorf(CodeUnknownProvider, span, "unknown model provider %q", prov)
	names := make([]string, len(Providers))
	for i, p := range Providers {
		names[i] = string(p)
	}
	if sug := suggest.Closest(prov, names); sug != "" && span != pr.Value.Span() {
		suggestFix(&dg, sug, span)
		dg.Detail += " The providers are " + strings.Join(names, ", ")
	} else {
		dg.Detail = "the providers are " + strings.Join(names, ", ") + ", e.g. model: \"OpenAI/gpt-4o-mini\""
	}
	c.diags.Add(dg)
}
