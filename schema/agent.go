package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// Compiling Agent declarations: their properties, model and tools.

// agent compiles an agent declaration and adds it to the program.
func (c *compiler) agent(d decl) {
	p := d.p
	a := c.slabs.agents.new()
	a.Name, a.Span, a.NameSpan, a.Settings, a.Props = p.Subject.Identity, p.Span(), p.IdentSpan(), DefaultSettings(), c.props(&p.Subject)
	c.prog.agents.v.push(a)
	if els := elements(p); len(els) > 0 {
		a.addAt, a.addSep = els[len(els)-1].Span().End, ",\n  "
	} else if p.Kind == parser.GroupKind && p.Span().Len() > 0 {
		a.addAt, a.addSep = p.Span().End-1, " | "
	}
	if a.Name == "" {
		c.unnamed(d, "agent", "[my_agent:Agent {...} | tools]")
	} else if !ValidToolName(a.Name) {
		c.explain(diag.Warningf(CodeInvalidAgentName, a.NameSpan, "agent name %q is not a valid tool name", a.Name),
			"an agent is a tool named after it when another agent lists it or hands to it, and when gramc mcp serve serves it: its name is "+toolNameRule, renameFix(a.Name, a.NameSpan))
	}
	approval := c.agentSettings(a, d)
	c.asTool(a, c.agentTools(a, p))
	if a.AsTool != nil {
		a.AsTool.Approval = approval
	}
}

// instruction reads the instruction of the agent a from p, reporting one
// that says nothing. A compile of the diagnostics alone (see lean.go) reads
// only whether it is blank, which its text as written tells as well as its
// text undented ([Dedent] takes out white space only): it leaves
// a.Instruction empty rather than make an undented copy of every agent's
// instruction.
func (c *compiler) instruction(a *Agent, p *parser.Property) {
	msg := func() string { return fmt.Sprintf("the instruction of agent %s is empty", disp(a.Name)) }
	detail := "write the system prompt the model receives, e.g. instruction: \"You are a helpful assistant.\""
	if c.lean {
		c.nonBlankText(p, CodeMissingInstruction, msg, detail)
	} else if s, ok := c.nonBlank(p, CodeMissingInstruction, msg, detail); ok {
		a.Instruction = s
	}
}

// isLocalAgent reports whether a is one of the file's agents (rather than
// one of the programs the file is compiled with).
func (c *compiler) isLocalAgent(a *Agent) bool {
	if c.localAgents == nil {
		c.localAgents = make(map[*Agent]bool, c.prog.NumAgents())
		for _, x := range c.prog.AllAgents() {
			c.localAgents[x] = true
		}
	}
	return c.localAgents[a]
}

// agentSettings compiles the properties of an agent declaration: its
// instruction, model and settings. It returns the value of its approval
// property, which its [Agent.AsTool] takes.
func (c *compiler) agentSettings(a *Agent, d decl) (approval bool) {
	p := d.p
	var hasModel, hasInstruction bool
	for i := range p.Subject.Properties {
		pr := &p.Subject.Properties[i]
		switch pr.Key {
		case "description":
			a.Description, _ = c.str(pr)
		case "instruction":
			hasInstruction = true
			c.instruction(a, pr)
		case "model":
			hasModel = true
			c.model(a, pr)
		case "maxIterations":
			if n, ok := c.integer(pr, 1, 10); ok {
				a.Settings.MaxIterations = n
			}
		case "temperature":
			if f, ok := c.number(pr, 0, 2); ok {
				t := c.slabs.floats.new()
				*t = f
				a.Settings.Temperature = t
			}
		case "maxTokens":
			if n, ok := c.integer(pr, 1, 1024); ok {
				a.Settings.MaxTokens = n
			}
		case "maxToolTokens":
			if n, ok := c.integer(pr, 1, 2000); ok {
				a.Settings.MaxToolTokens = n
			}
		case "timeout":
			if t, ok := c.duration(pr); ok {
				a.Settings.Timeout = t
			}
		case "parallelToolCalls":
			if b, ok := c.boolean(pr); ok {
				a.Settings.ParallelToolCalls = b
			}
		case "approval":
			approval = c.approval(pr)
		case "maxToolCalls", "maxTotalTokens", "maxCostUSD":
			c.budget(a, pr)
		default:
			c.unknownProp(pr, "an agent", agentProps, nil)
		}
	}
	if !hasInstruction {
		c.diags.Add(detailed(diag.Errorf(CodeMissingInstruction, headSpan(d), "agent %s has no instruction", disp(a.Name)),
			"add the system prompt to its record: {instruction: \"You are a helpful assistant.\", ...}"))
	}
	if !hasModel {
		c.diags.Add(detailed(diag.Errorf(CodeMissingModel, headSpan(d), "agent %s has no model", disp(a.Name)),
			"add one to its record, written Provider/model-id: {model: \"OpenAI/gpt-4o-mini\", ...}"))
	}
	return approval
}

// referenceNotATool reports an element of an agent that refers to a
// pattern that is not a tool. When that pattern is a bare node, (name)
// alone or in a relationship such as a handoff whose end is misspelt, the
// name is declared nowhere: the error says so and suggests the tool or
// agent whose name is closest.
func (c *compiler) referenceNotATool(e *parser.Pattern) {
	name, def := e.Subject.Identity, e.Def
	const help = "an agent's elements are tools and agents: refer to a [name:Tool {...} | signature] or an [name:Agent {...}] defined at the top level, or write a tool here"
	if def.Kind != parser.NodeKind || len(def.Subject.Labels) > 0 || len(def.Subject.Properties) > 0 || len(def.Elements) > 0 {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidAgentElement, e.Span(), "%s is not a tool", name), help,
			diag.Related{Span: def.IdentSpan(), Message: "definition of " + name}))
		return
	}
	dg := detailed(diag.Errorf(CodeInvalidAgentElement, e.Span(), "%s is not declared: its only definition is the bare node (%s)", name, name), help,
		diag.Related{Span: def.IdentSpan(), Message: "the bare node " + name})
	names := append(c.agentNamesInScope(), namesOf(c.prog.Tools(), toolName)...)
	if c.pkg != nil {
		names = append(names, slices.Sorted(maps.Keys(c.pkg.tools))...)
	}
	if s := suggest.Closest(name, names); s != "" && s != name {
		dg.Detail = "did you mean " + s + "? " + help
		dg.Fixes = []diag.Fix{replaceFix("Change to "+s, e.IdentSpan(), s)}
	}
	c.diags.Add(dg)
}

// agentTools compiles the elements of an agent declaration, its tools: the
// tools written inline and the references to tools defined at the top
// level, each once, and the agents it lists (see agentElement); it returns
// the tool its signature element makes, or nil.
func (c *compiler) agentTools(a *Agent, p *parser.Pattern) (sig *Tool) {
	// Inline tools first, so that a reference may come before the tool.
	for _, e := range p.Elements {
		if e.Kind == parser.GroupKind && isToolPattern(e) {
			if ed, ok := c.declOf(e); ok && ed.label == ToolLabel {
				c.tool(ed, false)
			}
		}
	}
	// The tools listed so far, each name once, their indexes and where
	// each was listed.
	tools := nameList[*Tool]{list: c.slabs.toolPtr.make(len(p.Elements))[:0]}
	idx := c.slabs.ints.make(len(p.Elements))[:0]
	spans := c.spans[:0]
	for _, e := range p.Elements {
		var t *Tool
		ti, ok := -1, false // the index of a tool of the file
		switch {
		case signaturePath(e) != nil:
			c.agentSignature(a, e, signaturePath(e), &sig)
			continue
		case e.Kind == parser.ReferenceKind && c.agentElement(a, e, len(tools.list)):
			continue
		case e.Kind == parser.GroupKind && isToolPattern(e):
			if ti, ok = c.toolIndex(e); !ok {
				ed, _ := c.declOfQuiet(e)
				c.notATool(e, ed.label)
				continue
			}
		case e.Kind == parser.ReferenceKind && e.Def == nil:
			// Undefined in the file: a tool of another file of the
			// package, or undefined (see pkgUnresolved and finish).
			if t = c.pkgTool(e); t == nil {
				continue
			}
		case e.Kind == parser.ReferenceKind:
			if ti, ok = c.toolIndex(e.Def); !ok {
				c.referenceNotATool(e)
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
		if ti >= 0 {
			t = c.prog.ToolAt(ti)
			c.useTool(ti)
		}
		span := e.IdentSpan()
		if span.Len() == 0 {
			span = e.Span()
		}
		if t.Name != "" {
			if i := tools.index(t.Name); i >= 0 {
				c.listedTwice(a, t, tools.list[i], span, spans[i])
				continue
			}
		}
		tools.add(t)
		idx, spans = append(idx, ti), append(spans, span)
	}
	c.spans = spans
	if len(tools.list) > 0 {
		a.Tools, a.toolIdx = tools.list, idx
	}
	return sig
}

// listedTwice reports the tool t, which the agent a lists at span after
// it listed first, of the same name, at firstSpan: the same tool twice (two
// definitions of one name are reported by fileChecks).
func (c *compiler) listedTwice(a *Agent, t, first *Tool, span, firstSpan diag.Span) {
	if first != t {
		return
	}
	c.diags.Add(detailed(diag.Errorf(CodeDuplicateTool, span, "agent %s lists the tool %s twice", disp(a.Name), disp(t.Name)),
		"tool names are unique within an agent: remove this one",
		diag.Related{Span: firstSpan, Message: "first use of " + t.Name}))
}

// notTools says, for each label of an element an agent cannot hold, what
// is wrong and the remedy.
var notTools = map[string][2]string{
	AgentLabel: {"an agent cannot be written inside another agent",
		"define the agent at the top level, [name:Agent {...} | ...], and list it here by name: the calling model sees it as a tool"},
	TestLabel:   {"an agent cannot contain a test", "define the test at the top level of the file, or in a *_test.gram file beside it, with {agent: name}"},
	RecordLabel: {"an agent cannot contain a record", "define the record at the top level of the file, where every tool can use it"},
	ToolLabel:   {"an inline tool is written in brackets", "write [name:Tool {description: \"...\"} | (param::String)==>(::String)]"},
	"": {"an agent's elements must be tools, agents or its signature",
		"write an inline [name:Tool {description: \"...\"} | signature], the name of a tool or an agent defined at the top level, or the agent's signature (param::String)==>(::String)"},
}

// notATool reports an agent element that is not a tool; label is its
// label of the agent language (see declLabelsOf), or "".
func (c *compiler) notATool(e *parser.Pattern, label string) {
	why := notTools[label]
	c.diags.Add(detailed(diag.Errorf(CodeInvalidAgentElement, e.Span(), "%s", why[0]), why[1]))
}

// model decodes an agent's model, "Provider/model-id".
func (c *compiler) model(a *Agent, pr *parser.Property) {
	s, ok := c.str(pr)
	if !ok {
		return
	}
	a.Model.Span = pr.Value.Span()
	prov, id, _ := strings.Cut(s, "/")
	if prov == "" || id == "" {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidModel, pr.Value.Span(), "model %q is not written Provider/model-id", s),
			"write e.g. model: \"OpenAI/gpt-4o-mini\" or \"Ollama/llama3.2\"; the providers are OpenAI, Ollama, OpenAICompatible, Anthropic and Gemini"))
		return
	}
	a.Model.Provider, a.Model.ID = Provider(prov), id
	if slices.Contains(Providers, Provider(prov)) {
		return
	}
	span := stringSpan(pr.Value, 0, len(prov))
	dg := diag.Errorf(CodeUnknownProvider, span, "unknown model provider %q", prov)
	names := namesOf(Providers, func(p Provider) string { return string(p) })
	if sug := suggest.Closest(prov, names); sug != "" && span != pr.Value.Span() {
		suggestFix(&dg, sug, span)
		dg.Detail += " The providers are " + strings.Join(names, ", ")
	} else {
		dg.Detail = "the providers are " + strings.Join(names, ", ") + ", e.g. model: \"OpenAI/gpt-4o-mini\""
	}
	c.diags.Add(dg)
}
