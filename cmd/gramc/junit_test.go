package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// junitElement is what the JUnit schema (the junit-10 XSD that CI servers
// validate against) allows of an element: its attributes, which are
// required, their types, and its child elements with their multiplicity.
type junitElement struct {
	attrs    map[string]string // name -> "string", "int" or "decimal"
	required []string
	children map[string]string // name -> "?" (at most once) or "*"
	text     bool              // character data allowed
	order    []string          // children must appear in this order
}

var junitSchema = map[string]junitElement{
	"testsuites": {
		attrs:    map[string]string{"name": "string", "time": "decimal", "tests": "int", "failures": "int", "errors": "int", "disabled": "int"},
		children: map[string]string{"testsuite": "*"},
	},
	"testsuite": {
		attrs: map[string]string{"name": "string", "tests": "int", "failures": "int", "errors": "int", "skipped": "int",
			"disabled": "int", "time": "decimal", "timestamp": "string", "hostname": "string", "id": "string",
			"package": "string", "file": "string", "log": "string", "url": "string", "version": "string", "group": "string"},
		required: []string{"name", "tests"},
		children: map[string]string{"properties": "?", "testcase": "*", "system-out": "?", "system-err": "?"},
		order:    []string{"properties", "testcase", "system-out", "system-err"},
	},
	"properties": {children: map[string]string{"property": "*"}},
	"property": {
		attrs:    map[string]string{"name": "string", "value": "string"},
		required: []string{"name", "value"},
	},
	"testcase": {
		attrs: map[string]string{"name": "string", "classname": "string", "assertions": "string", "time": "decimal",
			"status": "string", "file": "string", "line": "string", "group": "string"},
		required: []string{"name"},
		children: map[string]string{"skipped": "?", "error": "*", "failure": "*", "system-out": "*", "system-err": "*"},
	},
	"failure":    {attrs: map[string]string{"message": "string", "type": "string"}, text: true},
	"error":      {attrs: map[string]string{"message": "string", "type": "string"}, text: true},
	"skipped":    {attrs: map[string]string{"message": "string"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

// validateJUnit checks a JUnit XML report strictly against the schema's
// structure: the root is testsuites, every element and attribute is one the
// schema allows where it is, required attributes are there, numbers are
// numbers, children come in order and no more often than allowed, and the
// counts of tests, failures and errors agree with the test cases.
func validateJUnit(b []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	type frame struct {
		name   string
		seen   map[string]int
		last   int
		start  xml.StartElement
		counts [3]int // testcases, failures, errors below
	}
	var stack []*frame
	root := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if t.Name.Space != "" {
				return fmt.Errorf("element %s has a namespace", name)
			}
			el, ok := junitSchema[name]
			if !ok {
				return fmt.Errorf("unknown element <%s>", name)
			}
			if len(stack) == 0 {
				if root || name != "testsuites" {
					return fmt.Errorf("the root must be one <testsuites>, not <%s>", name)
				}
				root = true
			} else {
				parent := stack[len(stack)-1]
				pel := junitSchema[parent.name]
				mult, ok := pel.children[name]
				if !ok {
					return fmt.Errorf("<%s> cannot contain <%s>", parent.name, name)
				}
				parent.seen[name]++
				if mult == "?" && parent.seen[name] > 1 {
					return fmt.Errorf("<%s> has more than one <%s>", parent.name, name)
				}
				if i := slices.Index(pel.order, name); i >= 0 {
					if i < parent.last {
						return fmt.Errorf("<%s> comes after a later element in <%s>", name, parent.name)
					}
					parent.last = i
				}
			}
			have := map[string]bool{}
			for _, a := range t.Attr {
				typ, ok := el.attrs[a.Name.Local]
				if !ok || a.Name.Space != "" {
					return fmt.Errorf("<%s> has no attribute %s", name, a.Name.Local)
				}
				have[a.Name.Local] = true
				switch typ {
				case "int":
					if n, err := strconv.Atoi(a.Value); err != nil || n < 0 {
						return fmt.Errorf("<%s %s=%q>: not a count", name, a.Name.Local, a.Value)
					}
				case "decimal":
					if _, err := strconv.ParseFloat(a.Value, 64); err != nil || strings.ContainsAny(a.Value, "eE") {
						return fmt.Errorf("<%s %s=%q>: not a decimal", name, a.Name.Local, a.Value)
					}
				}
			}
			for _, r := range el.required {
				if !have[r] {
					return fmt.Errorf("<%s> lacks the attribute %s", name, r)
				}
			}
			stack = append(stack, &frame{name: name, seen: map[string]int{}, start: t})
		case xml.EndElement:
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch f.name {
			case "testcase":
				f.counts[0] = 1
				f.counts[1] = f.seen["failure"]
				f.counts[2] = f.seen["error"]
			case "testsuite", "testsuites":
				for i, attr := range []string{"tests", "failures", "errors"} {
					for _, a := range f.start.Attr {
						if a.Name.Local == attr {
							if n, _ := strconv.Atoi(a.Value); n != f.counts[i] {
								return fmt.Errorf("<%s name=%q> says %s=%d, but has %d", f.name, attrOf(f.start, "name"), attr, n, f.counts[i])
							}
						}
					}
				}
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				for i := range p.counts {
					p.counts[i] += f.counts[i]
				}
			}
		case xml.CharData:
			if len(stack) > 0 && !junitSchema[stack[len(stack)-1].name].text && len(bytes.TrimSpace(t)) > 0 {
				return fmt.Errorf("<%s> cannot contain text", stack[len(stack)-1].name)
			}
			if len(stack) == 0 && len(bytes.TrimSpace(t)) > 0 {
				return errors.New("text outside the root element")
			}
		}
	}
	if !root {
		return errors.New("no <testsuites> element")
	}
	return nil
}

func attrOf(s xml.StartElement, name string) string {
	for _, a := range s.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// TestValidateJUnit shows that the validator rejects what the schema does.
func TestValidateJUnit(t *testing.T) {
	good := `<?xml version="1.0"?><testsuites tests="1" failures="1" errors="0"><testsuite name="a" tests="1" failures="1"><testcase name="t" classname="a" time="0.001"><failure message="m" type="failure">x</failure></testcase></testsuite></testsuites>`
	if err := validateJUnit([]byte(good)); err != nil {
		t.Fatalf("valid report rejected: %v", err)
	}
	bad := map[string]string{
		"wrong root":        `<testsuite name="a" tests="0"></testsuite>`,
		"unknown element":   `<testsuites><testsuite name="a" tests="1"><testcase name="t"><oops/></testcase></testsuite></testsuites>`,
		"unknown attribute": `<testsuites><testsuite name="a" tests="0" colour="red"></testsuite></testsuites>`,
		"missing name":      `<testsuites><testsuite tests="0"></testsuite></testsuites>`,
		"bad count":         `<testsuites><testsuite name="a" tests="x"></testsuite></testsuites>`,
		"count mismatch":    `<testsuites><testsuite name="a" tests="2"><testcase name="t"/></testsuite></testsuites>`,
		"bad time":          `<testsuites><testsuite name="a" tests="1"><testcase name="t" time="1s"/></testsuite></testsuites>`,
		"two skipped":       `<testsuites><testsuite name="a" tests="1"><testcase name="t"><skipped/><skipped/></testcase></testsuite></testsuites>`,
		"out of order":      `<testsuites><testsuite name="a" tests="1"><system-out/><testcase name="t"/></testsuite></testsuites>`,
		"text in suite":     `<testsuites><testsuite name="a" tests="0">hello</testsuite></testsuites>`,
		"not well formed":   `<testsuites><testsuite name="a" tests="0"></testsuites>`,
	}
	for name, doc := range bad {
		if err := validateJUnit([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
