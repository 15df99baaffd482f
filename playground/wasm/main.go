//go:build js && wasm

// Command wasm is the gram toolchain for the browser playground: built with
// GOOS=js GOARCH=wasm (see docs/playground.md), it sets globalThis.gram to
// an object whose functions answer for a text of the page's editor through
// a playground/api.Session:
//
//	check(text)                    diagnostics with quick fixes
//	schema(text, target, strict)   the tools' JSON Schemas, or why none
//	agents(text)                   the agents: their signatures and tools
//	agentSchema(text, agent, target, strict)
//	                               one agent's tools' JSON Schemas (the
//	                               agents it calls and its handoffs among
//	                               them) and its answer's, or why none
//	format(text)                   the formatted text, or why none
//	tree(text)                     the syntax tree as an S-expression
//	hover(text, line, character)   Markdown about the thing there, or null
//	complete(text, line, character) completions and the range they replace
//
// Each returns its answer as a JSON string; positions count UTF-16 units,
// as the editor does. gram.targets is the list of schema targets and
// gram.version the toolchain's version. When the object is set, the
// module calls globalThis.gramReady if the page defined it.
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/playground/api"
)

// answer encodes v as the JSON string a function returns.
func answer(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return string(b)
}

// position reads the line and character arguments at i and i+1.
func position(args []js.Value, i int) api.Position {
	return api.Position{Line: args[i].Int(), Character: args[i+1].Int()}
}

func main() {
	var s api.Session
	fn := func(n int, f func(args []js.Value) any) js.Func {
		return js.FuncOf(func(_ js.Value, args []js.Value) any {
			if len(args) < n {
				return answer(map[string]string{"error": "too few arguments"})
			}
			return answer(f(args))
		})
	}
	targets := []any{}
	for _, t := range api.Targets() {
		targets = append(targets, t)
	}
	gram := js.ValueOf(map[string]any{
		"version": buildinfo.Version(),
		"targets": targets,
	})
	gram.Set("check", fn(1, func(a []js.Value) any { return s.Check(a[0].String()) }))
	gram.Set("schema", fn(3, func(a []js.Value) any { return s.Schema(a[0].String(), a[1].String(), a[2].Truthy()) }))
	gram.Set("agents", fn(1, func(a []js.Value) any { return s.Agents(a[0].String()) }))
	gram.Set("agentSchema", fn(4, func(a []js.Value) any {
		return s.AgentSchema(a[0].String(), a[1].String(), a[2].String(), a[3].Truthy())
	}))
	gram.Set("format", fn(1, func(a []js.Value) any { return s.Format(a[0].String()) }))
	gram.Set("tree", fn(1, func(a []js.Value) any { return s.Tree(a[0].String()) }))
	gram.Set("hover", fn(3, func(a []js.Value) any { return s.Hover(a[0].String(), position(a, 1)) }))
	gram.Set("complete", fn(3, func(a []js.Value) any { return s.Complete(a[0].String(), position(a, 1)) }))
	js.Global().Set("gram", gram)
	if ready := js.Global().Get("gramReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}
