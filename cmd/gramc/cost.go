package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/tokens"
)

// costReport is what gramc cost prints as JSON.
type costReport struct {
	Target   string      `json:"target"`
	Encoding string      `json:"encoding"`
	Estimate bool        `json:"estimate,omitempty"`
	Agents   []costAgent `json:"agents"`
}

// costAgent is one agent's figures: its model and encoding when each
// agent is counted for its own, then its cost.
type costAgent struct {
	Agent    string `json:"agent"`
	Model    string `json:"model,omitempty"`
	Encoding string `json:"encoding,omitempty"`
	Estimate bool   `json:"estimate,omitempty"`
	schema.AgentCost
}

func runCost(e *env, args []string) error {
	fs := newFlags(e, "cost")
	target := fs.String("target", "", "count for this target instead of each agent's model: "+strings.Join(schema.CostTargets, ", ")+" or a model, Provider/model-id")
	format := fs.String("format", "text", "output format: text or json")
	maxDiags := diagFlags(e, fs)
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat("gramc cost", *format, "text", "json"); err != nil {
		return err
	}
	var counter *tokens.Counter
	var tg *schema.Target
	if *target != "" {
		if counter, tg = schema.CounterForTarget(*target); counter == nil {
			return usageError("gramc cost", "unknown target %q: give one of %s, or a model as Provider/model-id (OpenAI/gpt-4o)", *target, strings.Join(schema.CostTargets, ", "))
		}
	}
	if len(args) != 1 {
		return usageError("gramc cost", "give exactly one file or directory (or - for standard input)")
	}
	overBudget := false
	e.overBudget = &overBudget
	var pkgs []treePackage
	root, tree := project.TreeArg(args[0])
	if tree {
		if pkgs, err = loadTree(e, "gramc cost", root, *maxDiags); err != nil {
			return err
		}
	} else {
		l, err := loadPackage(e, "gramc cost", args[0], *maxDiags)
		if err != nil {
			return err
		}
		pkgs = []treePackage{{loadedProgram: l}}
	}
	reps := make(map[string]costReport, len(pkgs))
	for _, p := range pkgs {
		reps[p.key] = newCostReport(p.prog, *target, counter, tg)
	}
	if *format == "json" {
		var v any = reps[""]
		if tree {
			v = reps // keyed by directory, in sorted order
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return usageError("gramc cost", "%v", err)
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		err = writeCostText(e, pkgs, reps)
	}
	if err == nil && overBudget {
		return exitWith(exitError)
	}
	return err
}

// newCostReport counts the agents of prog for target, with counter and
// tg, or, without a target, each for its own model.
func newCostReport(prog *schema.Program, target string, counter *tokens.Counter, tg *schema.Target) costReport {
	rep := costReport{Target: target, Agents: []costAgent{}}
	if target == "" {
		rep.Target = "model"
	} else {
		rep.Encoding, rep.Estimate = counter.Name, counter.Estimate
	}
	for _, a := range prog.Agents() {
		c, t := counter, tg
		ca := costAgent{Agent: a.Name}
		if c == nil {
			c, t = schema.CounterFor(a.Model)
			ca.Model, ca.Encoding, ca.Estimate = a.Model.String(), c.Name, c.Estimate
		}
		ca.AgentCost = schema.Cost(c, t, a)
		if ca.ToolCosts == nil {
			ca.ToolCosts = []tokens.Cost{} // "tools": [] for an agent without tools
		}
		rep.Agents = append(rep.Agents, ca)
	}
	return rep
}

// writeCostText prints the reports of the packages as text: the target,
// then a line for each agent and one for each of its tools; a package of
// a tree is headed by its directory. The control characters of the names
// are shown as visible characters.
func writeCostText(e *env, pkgs []treePackage, reps map[string]costReport) error {
	var b strings.Builder
	if rep := reps[pkgs[0].key]; rep.Encoding != "" {
		fmt.Fprintf(&b, "target %s, %s\n", rep.Target, encodingText(rep.Encoding, rep.Estimate))
	}
	for i, p := range pkgs {
		if p.key != "" {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s:\n", p.key)
		}
		for _, a := range reps[p.key].Agents {
			fmt.Fprintf(&b, "agent %s: %d tokens (instruction %d, tools %d)", a.Agent, a.Total, a.Instruction, a.Tools)
			if a.Model != "" {
				fmt.Fprintf(&b, ", %s, %s", a.Model, encodingText(a.Encoding, a.Estimate))
			}
			b.WriteString("\n")
			for _, t := range a.ToolCosts {
				fmt.Fprintf(&b, "  %-24s %6d\n", t.Name, t.Tokens)
			}
		}
	}
	_, err := io.WriteString(e.stdout, diag.Visible(b.String()))
	return err
}

// encodingText names the encoding in the text output, or says the counts
// are an estimate.
func encodingText(enc string, estimate bool) string {
	if estimate {
		return "an estimate, not the provider's count"
	}
	return "encoding " + enc
}
