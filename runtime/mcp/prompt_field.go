// The fields of an elicitation form as the terminal asks for them: what a
// requested schema's property allows, the prompt that says it, and the
// reading of an answer against it.

package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fieldSchema is the part of a property's schema the terminal reads.
type fieldSchema struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	Enum        []any           `json:"enum"`
	OneOf       []titledConst   `json:"oneOf"`
	Items       *struct {
		Enum  []any         `json:"enum"`
		AnyOf []titledConst `json:"anyOf"`
	} `json:"items"`
	MinLength *int     `json:"minLength"`
	MaxLength *int     `json:"maxLength"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
	MinItems  *int     `json:"minItems"`
	MaxItems  *int     `json:"maxItems"`
	Pattern   string   `json:"pattern"`
}

// titledConst is one choice of a titled enum.
type titledConst struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// field is one property of a form.
type field struct {
	name     string
	required bool
	fieldSchema
	choices []choice // of an enum, single or multiple
	re      *regexp.Regexp
}

// choice is a value an enum allows and its label.
type choice struct{ value, label string }

// check reads the choices and the pattern of f, or says why the terminal
// cannot ask for it.
func (f *field) check() error {
	switch {
	case len(f.Enum) > 0:
		f.choices = plainChoices(f.Enum)
	case len(f.OneOf) > 0:
		f.choices = titledChoices(f.OneOf)
	case f.Type == "array" && f.Items != nil && len(f.Items.Enum) > 0:
		f.choices = plainChoices(f.Items.Enum)
	case f.Type == "array" && f.Items != nil:
		f.choices = titledChoices(f.Items.AnyOf)
	}
	switch f.Type {
	case "string", "number", "integer", "boolean", "":
	case "array":
		if len(f.choices) == 0 {
			return fmt.Errorf("the field %q is a list without choices", f.name)
		}
	default:
		return fmt.Errorf("the field %q has the type %q, which a form does not have", f.name, f.Type)
	}
	if f.Pattern != "" {
		re, err := regexp.Compile(f.Pattern)
		if err != nil {
			return fmt.Errorf("the field %q has a pattern Go cannot read: %v", f.name, err)
		}
		f.re = re
	}
	return nil
}

// plainChoices returns the choices of an enum, labelled by their values.
func plainChoices(vals []any) []choice {
	var cs []choice
	for _, v := range vals {
		s := fmt.Sprint(v)
		cs = append(cs, choice{s, s})
	}
	return cs
}

// titledChoices returns the choices of a titled enum.
func titledChoices(vals []titledConst) []choice {
	var cs []choice
	for _, v := range vals {
		s := fmt.Sprint(v.Const)
		label := s
		if v.Title != "" && v.Title != s {
			label = v.Title + " (" + s + ")"
		}
		cs = append(cs, choice{s, label})
	}
	return cs
}

// prompt returns the line that asks for f: its name, title and
// description, the choices, and what an empty answer gives.
func (f *field) prompt() string {
	var b strings.Builder
	label := f.name
	if f.Title != "" && !strings.EqualFold(f.Title, f.name) {
		label += " (" + f.Title + ")"
	}
	b.WriteString(label)
	if f.Description != "" {
		b.WriteString(": " + f.Description)
	}
	b.WriteString("\n")
	for i, c := range f.choices {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, c.label)
	}
	var hint []string
	switch {
	case f.Type == "boolean":
		hint = append(hint, "y/n")
	case f.Type == "array":
		hint = append(hint, "numbers or values, separated by commas")
	case len(f.choices) > 0:
		hint = append(hint, "a number or a value")
	case f.Type == "number" || f.Type == "integer":
		hint = append(hint, f.Type)
	}
	switch {
	case len(f.Default) > 0:
		hint = append(hint, "empty: "+string(f.Default))
	case !f.required:
		hint = append(hint, "optional")
	}
	b.WriteString("> ")
	if len(hint) > 0 {
		b.WriteString("[" + strings.Join(hint, ", ") + "] ")
	}
	return b.String()
}

// parse reads an answer for f: its value, whether there is one (an
// optional field may be left empty), or what is wrong with it.
func (f *field) parse(line string) (any, bool, string) {
	if line == "" {
		if len(f.Default) > 0 {
			var v any
			if json.Unmarshal(f.Default, &v) == nil {
				return v, true, ""
			}
		}
		if !f.required {
			return nil, false, ""
		}
		return nil, false, "an answer is required"
	}
	switch {
	case f.Type == "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, true, ""
		case "n", "no", "false":
			return false, true, ""
		}
		return nil, false, "answer y or n"
	case f.Type == "array":
		return f.parseMany(line)
	case len(f.choices) > 0:
		c, problem := f.pick(line)
		return c, problem == "", problem
	case f.Type == "number" || f.Type == "integer":
		return f.parseNumber(line)
	}
	return f.parseString(line)
}

// pick returns the choice an answer names, by number or by value.
func (f *field) pick(s string) (string, string) {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(f.choices) {
		return f.choices[n-1].value, ""
	}
	for _, c := range f.choices {
		if c.value == s {
			return c.value, ""
		}
	}
	return "", fmt.Sprintf("answer one of 1 to %d, or a value listed", len(f.choices))
}

// parseMany reads the choices of a multi-select enum.
func (f *field) parseMany(line string) (any, bool, string) {
	var vals []any
	for _, part := range strings.Split(line, ",") {
		c, problem := f.pick(strings.TrimSpace(part))
		if problem != "" {
			return nil, false, problem
		}
		if !slices.Contains(vals, any(c)) {
			vals = append(vals, c)
		}
	}
	switch {
	case f.MinItems != nil && len(vals) < *f.MinItems:
		return nil, false, fmt.Sprintf("choose at least %d", *f.MinItems)
	case f.MaxItems != nil && len(vals) > *f.MaxItems:
		return nil, false, fmt.Sprintf("choose at most %d", *f.MaxItems)
	}
	return vals, true, ""
}

// parseNumber reads a number or an integer within its bounds.
func (f *field) parseNumber(line string) (any, bool, string) {
	x, err := strconv.ParseFloat(line, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, false, "answer a number"
	}
	if f.Type == "integer" && x != math.Trunc(x) {
		return nil, false, "answer a whole number"
	}
	switch {
	case f.Minimum != nil && x < *f.Minimum:
		return nil, false, fmt.Sprintf("answer %v or more", *f.Minimum)
	case f.Maximum != nil && x > *f.Maximum:
		return nil, false, fmt.Sprintf("answer %v or less", *f.Maximum)
	}
	if f.Type == "integer" {
		return int64(x), true, ""
	}
	return x, true, ""
}

// parseString reads a string within its length and pattern.
func (f *field) parseString(line string) (any, bool, string) {
	n := utf8.RuneCountInString(line)
	switch {
	case f.MinLength != nil && n < *f.MinLength:
		return nil, false, fmt.Sprintf("answer at least %d characters", *f.MinLength)
	case f.MaxLength != nil && n > *f.MaxLength:
		return nil, false, fmt.Sprintf("answer at most %d characters", *f.MaxLength)
	case f.re != nil && !f.re.MatchString(line):
		return nil, false, "the answer must match " + f.Pattern
	}
	return line, true, ""
}
