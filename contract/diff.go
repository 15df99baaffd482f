// The diff: tools matched by name (a removed and an added tool with the
// same signature are a rename), their parameters by name, their return
// types, the records they use field by field, and agents by name.

package contract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/schema/compat"
)

// Place is where a change is in one version: a span of its file. A
// change that has no place in a version (a tool added has none in the old
// one) has the zero Place there.
type Place struct {
	File *diag.File
	Span diag.Span
}

// IsZero reports whether the place is absent.
func (p Place) IsZero() bool { return p.File == nil }

// Change is one change of a contract.
type Change struct {
	// Kind classifies the change.
	Kind Kind
	// Breaking says the change breaks callers.
	Breaking bool
	// Subject is what changed: "tool getOrder", "tool getOrder, parameter
	// orderId", "record Order, field status", "agent desk".
	Subject string
	// Message says what changed and what it does to callers.
	Message string
	// Old and New are where the change is in each version.
	Old, New Place
	// Tools are the tools whose contract the change is part of (several
	// for a record they share).
	Tools []string
}

// Report is the comparison of two versions.
type Report struct {
	// Old and New are the versions compared.
	Old, New *schema.Program
	// Changes are the changes, tools first (in the new version's order,
	// removed ones first), then agents.
	Changes []Change
}

// Breaking returns the number of breaking changes.
func (r *Report) Breaking() int {
	n := 0
	for _, c := range r.Changes {
		if c.Breaking {
			n++
		}
	}
	return n
}

// Diff compares the old and the new version of a program. Both should
// compile without errors; a program with errors is compared as far as it
// goes.
func Diff(old, new *schema.Program) *Report {
	d := &differ{old: old, new: new}
	d.tools()
	d.agents()
	return &Report{Old: old, New: new, Changes: merge(d.out)}
}

// direction is how values cross a contract: sent by callers (parameters)
// or received by them (return values).
type direction int

const (
	sent direction = iota
	received
)

// differ collects the changes of one comparison.
type differ struct {
	old, new *schema.Program
	out      []Change
	// tool is the tool being compared; seen the record pairs compared in
	// it, by direction.
	tool string
	seen map[recordPair]bool
}

// recordPair is a record of each version compared in one direction.
type recordPair struct {
	old, new *schema.Record
	dir      direction
}

// at returns a place in the old or the new version.
func (d *differ) at(newSide bool, span diag.Span) Place {
	if newSide {
		return Place{File: d.new.File, Span: span}
	}
	return Place{File: d.old.File, Span: span}
}

// add records a change of the tool being compared.
func (d *differ) add(c Change) {
	if d.tool != "" {
		c.Tools = []string{d.tool}
	}
	d.out = append(d.out, c)
}

// tools compares the tools of both versions.
func (d *differ) tools() {
	oldTools, newTools := index(d.old.Tools(), toolName), index(d.new.Tools(), toolName)
	var removed, added []*schema.Tool
	for _, o := range d.old.Tools() {
		if newTools[o.Name] == nil {
			removed = append(removed, o)
		}
	}
	for _, n := range d.new.Tools() {
		if oldTools[n.Name] == nil {
			added = append(added, n)
		}
	}
	renamed := map[*schema.Tool]bool{}
	for _, o := range removed {
		if i := slices.IndexFunc(added, func(n *schema.Tool) bool { return sameSignature(o, n) }); i >= 0 {
			n := added[i]
			added = slices.Delete(added, i, i+1)
			renamed[n] = true
			d.add(Change{Kind: ToolRenamed, Breaking: true, Subject: "tool " + o.Name, Tools: []string{o.Name, n.Name},
				Message: fmt.Sprintf("renamed to %s, with the same signature: calls of %s fail", n.Name, o.Name),
				Old:     d.at(false, o.NameSpan), New: d.at(true, n.NameSpan)})
			continue
		}
		d.add(Change{Kind: ToolRemoved, Breaking: true, Subject: "tool " + o.Name, Tools: []string{o.Name},
			Message: "removed: calls of it fail", Old: d.at(false, o.NameSpan)})
	}
	for _, n := range d.new.Tools() {
		o := oldTools[n.Name]
		if o == nil && !renamed[n] {
			d.add(Change{Kind: ToolAdded, Subject: "tool " + n.Name, Tools: []string{n.Name}, Message: "added", New: d.at(true, n.NameSpan)})
			continue
		}
		if o != nil {
			d.tool, d.seen = n.Name, map[recordPair]bool{}
			d.toolChanges(o, n)
			d.tool, d.seen = "", nil
		}
	}
}

// index maps names (as name gives them) to the first of list with each.
func index[T any](list []*T, name func(*T) string) map[string]*T {
	m := make(map[string]*T, len(list))
	for _, x := range list {
		if _, ok := m[name(x)]; !ok {
			m[name(x)] = x
		}
	}
	return m
}

func toolName(t *schema.Tool) string   { return t.Name }
func agentName(a *schema.Agent) string { return a.Name }

// sameSignature reports whether two tools take and return the same values.
func sameSignature(a, b *schema.Tool) bool {
	if len(compat.Diff(generic(schema.FullParametersSchema(a)), generic(schema.FullParametersSchema(b)))) > 0 {
		return false
	}
	ao, bo := schema.OutputSchema(a), schema.OutputSchema(b)
	if ao == nil || bo == nil {
		return ao == nil && bo == nil
	}
	return len(compat.Diff(generic(ao), generic(bo))) == 0
}

// generic returns a schema as generic JSON with its references resolved.
func generic(o schema.Object) any { return compat.ShareRefs(schema.ToAny(o)) }

// toolChanges compares two versions of a tool.
func (d *differ) toolChanges(o, n *schema.Tool) {
	subject := "tool " + n.Name
	if o.Description != n.Description {
		d.add(Change{Kind: DescriptionChanged, Subject: subject, Message: "description changed",
			Old: d.at(false, descSpan(o.Props, o.NameSpan)), New: d.at(true, descSpan(n.Props, n.NameSpan))})
	}
	d.params(scope{subject: subject, what: "parameter", dir: sent, oldSpan: o.SignatureSpan, newSpan: n.SignatureSpan}, o.Params, n.Params)
	if o.Returns != nil && n.Returns != nil {
		s := scope{subject: subject + ", return type", dir: received, isReturn: true}
		if o.ReturnDescription != n.ReturnDescription {
			d.add(Change{Kind: DescriptionChanged, Subject: s.subject, Message: "description changed",
				Old: d.at(false, o.ReturnSpan), New: d.at(true, n.ReturnSpan)})
		}
		d.typeChanges(s, nil, nil, o.Returns, n.Returns)
	}
}

// descSpan returns the span of the description property in props, or
// else.
func descSpan(props []schema.Prop, or diag.Span) diag.Span {
	if s, ok := schema.PropSpan(props, "description"); ok {
		return s
	}
	return or
}

// scope is where in a contract parameters or fields are compared.
type scope struct {
	// subject names the tool or record: "tool t", "record R".
	subject string
	// what is "parameter" or "field".
	what string
	// dir says whether callers send or receive the values.
	dir direction
	// isReturn is set for a tool's return type itself.
	isReturn bool
	// oldSpan and newSpan are where a parameter or field added or removed
	// is placed on the side that lacks it: the signature or the record.
	oldSpan, newSpan diag.Span
}

// params compares parameters (or a record's fields) by name: those of the
// new version in order, then those removed.
func (d *differ) params(s scope, olds, news []*schema.Param) {
	oldByName, newByName := byName(olds), byName(news)
	for _, op := range olds {
		if newByName[op.Name] == nil {
			d.removedParam(s, op)
		}
	}
	for _, np := range news {
		op := oldByName[np.Name]
		switch {
		case op == nil:
			d.addedParam(s, np, "added")
		case op.Injected && np.Injected:
			if !sameParam(op, np) {
				d.add(Change{Kind: InjectedParameterChanged, Subject: s.subject + ", parameter " + np.Name,
					Message: "injected parameter changed: callers never send it",
					Old:     d.at(false, op.Span), New: d.at(true, np.Span)})
			}
		case !op.Injected && np.Injected:
			d.add(Change{Kind: ParameterRemoved, Breaking: true, Subject: s.subject + ", parameter " + np.Name,
				Message: "now injected: the host sets it, and calls that send it are refused",
				Old:     d.at(false, op.NameOrNode()), New: d.at(true, injectedSpan(np))})
		case op.Injected && !np.Injected:
			d.addedParam(s, np, "no longer injected")
		default:
			d.paramChanges(s, op, np)
		}
	}
}

// byName indexes parameters by name, the first of each name.
func byName(list []*schema.Param) map[string]*schema.Param {
	return index(list, func(p *schema.Param) string { return p.Name })
}

// removedParam records a parameter or field of the old version that the
// new one lacks.
func (d *differ) removedParam(s scope, op *schema.Param) {
	c := Change{Subject: s.subject + ", " + s.what + " " + op.Name, Old: d.at(false, op.NameOrNode()), New: d.at(true, s.newSpan)}
	switch {
	case op.Injected:
		c.Kind, c.Message = InjectedParameterChanged, "injected parameter removed: callers never sent it"
	case s.what == "parameter":
		c.Kind, c.Breaking, c.Message = ParameterRemoved, true, "removed: calls that send it are refused"
	case s.dir == sent:
		c.Kind, c.Breaking, c.Message = FieldRemoved, true, "removed: values that have it are refused"
	default:
		c.Kind, c.Breaking, c.Message = FieldRemoved, true, "removed: callers that read it no longer find it"
	}
	d.add(c)
}

// addedParam records a parameter or field of the new version that the
// old one lacks (how: "added", or "no longer injected").
func (d *differ) addedParam(s scope, np *schema.Param, how string) {
	c := Change{Subject: s.subject + ", " + s.what + " " + np.Name, Old: d.at(false, s.oldSpan), New: d.at(true, np.NameOrNode())}
	req := np.Required()
	switch {
	case np.Injected:
		c.Kind, c.Message = InjectedParameterChanged, "injected parameter added: the host sets it, callers never send it"
	case s.what == "parameter" && req:
		c.Kind, c.Breaking, c.Message = RequiredParameterAdded, true, how+", required: calls without it are refused"
	case s.what == "parameter":
		c.Kind, c.Message = OptionalParameterAdded, how+", optional: every call that was valid still is"
	case s.dir == sent && req:
		c.Kind, c.Breaking, c.Message = RequiredFieldAdded, true, how+", required: values without it are refused"
	case s.dir == sent:
		c.Kind, c.Message = OptionalFieldAdded, how+", optional: every value that was valid still is"
	case req:
		c.Kind, c.Message = RequiredFieldAdded, how+", required: callers receive it besides the fields they know"
	default:
		c.Kind, c.Message = OptionalFieldAdded, how+", optional: callers receive it besides the fields they know"
	}
	d.add(c)
}

// injectedSpan returns the span of a parameter's injected property, or
// of its name.
func injectedSpan(p *schema.Param) diag.Span {
	if s, ok := schema.PropSpan(p.Props, "injected"); ok {
		return s
	}
	return p.NameOrNode()
}

// sameParam reports whether two parameters are the same but for their
// places.
func sameParam(a, b *schema.Param) bool {
	if a.Description != b.Description || a.Required() != b.Required() || a.HasDefault != b.HasDefault {
		return false
	}
	return len(compat.Diff(generic(schema.ParamSchema(a)), generic(schema.ParamSchema(b)))) == 0 &&
		compactJSON(a.Default) == compactJSON(b.Default)
}

// paramChanges compares two versions of a parameter or field.
func (d *differ) paramChanges(s scope, op, np *schema.Param) {
	subject := s.subject + ", " + s.what + " " + np.Name
	oldAt, newAt := d.at(false, op.NameOrNode()), d.at(true, np.NameOrNode())
	switch {
	case op.Required() && !np.Required():
		kind, breaking, msg := ParameterMadeOptional, false, "now optional: every call that was valid still is"
		if s.what == "field" {
			kind = FieldMadeOptional
			if s.dir == received {
				breaking, msg = true, "now optional: callers that read it may not find it"
			} else {
				msg = "now optional: every value that was valid still is"
			}
		}
		d.add(Change{Kind: kind, Breaking: breaking, Subject: subject, Message: msg, Old: oldAt, New: d.at(true, optionalSpan(np))})
	case !op.Required() && np.Required():
		kind, breaking, msg := ParameterMadeRequired, true, "now required: calls that leave it out are refused"
		if s.what == "field" {
			kind = FieldMadeRequired
			if s.dir == received {
				breaking, msg = false, "now required: callers always find it"
			} else {
				msg = "now required: values that leave it out are refused"
			}
		}
		d.add(Change{Kind: kind, Breaking: breaking, Subject: subject, Message: msg, Old: d.at(false, optionalSpan(op)), New: newAt})
	case s.dir == sent && !op.Required() && (op.HasDefault != np.HasDefault || compactJSON(op.Default) != compactJSON(np.Default)):
		d.add(Change{Kind: DefaultChanged, Breaking: true, Subject: subject, Message: defaultMessage(op, np),
			Old: d.at(false, propOr(op, "default")), New: d.at(true, propOr(np, "default"))})
	}
	if op.Description != np.Description {
		d.add(Change{Kind: DescriptionChanged, Subject: subject, Message: "description changed",
			Old: d.at(false, descSpan(op.Props, op.NameOrNode())), New: d.at(true, descSpan(np.Props, np.NameOrNode()))})
	}
	d.typeChanges(scope{subject: subject, dir: s.dir}, op, np, op.Type, np.Type)
}

// defaultMessage says how a default changed.
func defaultMessage(op, np *schema.Param) string {
	const why = ": calls that leave it out now mean something else"
	switch {
	case !op.HasDefault:
		return "default " + compactJSON(np.Default) + " added" + why
	case !np.HasDefault:
		return "default " + compactJSON(op.Default) + " removed" + why
	}
	return "default " + compactJSON(op.Default) + " → " + compactJSON(np.Default) + why
}

// optionalSpan returns the span of what makes a parameter optional: its
// optional or default property, or its name.
func optionalSpan(p *schema.Param) diag.Span { return propOr(p, "optional", "default") }

// propOr returns the span of the first of the properties keys that p has,
// or of its name.
func propOr(p *schema.Param, keys ...string) diag.Span {
	for _, k := range keys {
		if s, ok := schema.PropSpan(p.Props, k); ok {
			return s
		}
	}
	return p.NameOrNode()
}

// merge returns the changes with those that are the same change seen from
// several tools (a record they share) made one, their tools joined.
func merge(changes []Change) []Change {
	type key struct {
		kind             Kind
		breaking         bool
		subject, message string
		old, new         diag.Span
	}
	type tool struct {
		change int
		name   string
	}
	at, has := map[key]int{}, map[tool]bool{}
	var out []Change
	for _, c := range changes {
		k := key{c.Kind, c.Breaking, c.Subject, c.Message, c.Old.Span, c.New.Span}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, c)
			out[i].Tools = nil
		}
		for _, t := range c.Tools {
			if !has[tool{i, t}] {
				has[tool{i, t}] = true
				out[i].Tools = append(out[i].Tools, t)
			}
		}
	}
	return out
}

// agents compares the agents of both versions.
func (d *differ) agents() {
	oldAgents, newAgents := index(d.old.Agents(), agentName), index(d.new.Agents(), agentName)
	for _, o := range d.old.Agents() {
		if newAgents[o.Name] == nil {
			d.add(Change{Kind: AgentRemoved, Breaking: true, Subject: "agent " + o.Name, Message: "removed: whoever runs or serves it fails",
				Old: d.at(false, o.NameSpan)})
		}
	}
	for _, n := range d.new.Agents() {
		o := oldAgents[n.Name]
		subject := "agent " + n.Name
		if o == nil {
			d.add(Change{Kind: AgentAdded, Subject: subject, Message: "added", New: d.at(true, n.NameSpan)})
			continue
		}
		oldTools, newTools := index(o.Tools, toolName), index(n.Tools, toolName)
		for _, t := range o.Tools {
			if newTools[t.Name] == nil {
				d.add(Change{Kind: AgentToolRemoved, Breaking: true, Subject: subject, Tools: []string{t.Name},
					Message: "no longer has the tool " + t.Name + ": what it did with it, it cannot",
					Old:     d.at(false, o.NameSpan), New: d.at(true, n.NameSpan)})
			}
		}
		for _, t := range n.Tools {
			if oldTools[t.Name] == nil {
				d.add(Change{Kind: AgentToolAdded, Subject: subject, Tools: []string{t.Name}, Message: "has the new tool " + t.Name,
					Old: d.at(false, o.NameSpan), New: d.at(true, n.NameSpan)})
			}
		}
		d.signatureChanges(o, n)
		if what := agentDifferences(o, n); len(what) > 0 {
			d.add(Change{Kind: AgentChanged, Subject: subject, Message: strings.Join(what, ", ") + " changed",
				Old: d.at(false, o.NameSpan), New: d.at(true, n.NameSpan)})
		}
	}
}

// signatureChanges compares what two versions of an agent take and
// return as another agent's tool (see schema.Agent.AsTool): the
// parameters of its signature, (message::String) without one, and the
// type of its answer, as a tool's are compared.
func (d *differ) signatureChanges(o, n *schema.Agent) {
	if o.AsTool == nil || n.AsTool == nil {
		return
	}
	ot, nt := o.AsTool, n.AsTool
	subject := "agent " + n.Name
	d.tool, d.seen = n.Name, map[recordPair]bool{}
	defer func() { d.tool, d.seen = "", nil }()
	d.params(scope{subject: subject, what: "parameter", dir: sent, oldSpan: sigSpan(o), newSpan: sigSpan(n)}, ot.Params, nt.Params)
	if ot.Returns != nil && nt.Returns != nil {
		d.typeChanges(scope{subject: subject + ", result type", dir: received, isReturn: true}, nil, nil, ot.Returns, nt.Returns)
	}
}

// sigSpan returns where an agent's signature is, its name without one.
func sigSpan(a *schema.Agent) diag.Span {
	if a.Signature && a.AsTool.SignatureSpan.Len() > 0 {
		return a.AsTool.SignatureSpan
	}
	return a.NameSpan
}

// agentDifferences names what differs between two versions of an agent
// other than its tools.
func agentDifferences(o, n *schema.Agent) []string {
	var out []string
	if o.Model.String() != n.Model.String() {
		out = append(out, "model")
	}
	if o.Instruction != n.Instruction {
		out = append(out, "instruction")
	}
	if o.Description != n.Description {
		out = append(out, "description")
	}
	a, b := o.Settings, n.Settings
	if a.MaxIterations != b.MaxIterations || a.MaxTokens != b.MaxTokens || a.Timeout != b.Timeout ||
		a.ParallelToolCalls != b.ParallelToolCalls || (a.Temperature == nil) != (b.Temperature == nil) ||
		a.Temperature != nil && *a.Temperature != *b.Temperature {
		out = append(out, "settings")
	}
	return out
}
