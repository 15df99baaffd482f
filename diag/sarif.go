// SARIF 2.1.0 output, the format code-scanning UIs read: one run, with a
// rule per diagnostic code (those of a catalogue first, in its order, so
// that rule indexes are stable), one result per diagnostic with its related
// locations and fixes, and regions in 1-based lines and columns counted in
// Unicode code points.

package diag

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIFTool names the tool of a SARIF log: its name, version and the URI
// of its documentation.
type SARIFTool struct {
	Name, Version, InformationURI string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool       `json:"tool"`
	ColumnKind string          `json:"columnKind"`
	Artifacts  []sarifArtifact `json:"artifacts"`
	Results    []sarifResult   `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration sarifConfig  `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifArtifact struct {
	Location sarifArtifactLocation `json:"location"`
}

type sarifArtifactLocation struct {
	URI   string `json:"uri"`
	Index *int   `json:"index,omitempty"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifMessage    `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Fixes            []sarifFix      `json:"fixes,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifMessage         `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           sarifRegion           `json:"region"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion  `json:"deletedRegion"`
	InsertedContent sarifMessage `json:"insertedContent"`
}

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// sarifURI turns a path into a URI reference: relative paths stay relative
// (to the directory gramc ran in), absolute ones become file URIs.
func sarifURI(path string) string {
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive letter
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// WriteSARIF writes the reports as a SARIF 2.1.0 log of tool: a rule for
// each code of rules, in order, then for each other code reported, and a
// result per diagnostic (a note for [Info] and [Hint]).
func WriteSARIF(w io.Writer, tool SARIFTool, rules []CodeInfo, reports []FileReport) error {
	driver := sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.InformationURI, Rules: []sarifRule{}}
	index := map[string]int{}
	addRule := func(c CodeInfo) int {
		if i, ok := index[c.Code]; ok {
			return i
		}
		index[c.Code] = len(driver.Rules)
		summary := c.Summary
		if summary == "" {
			summary = c.Code
		}
		driver.Rules = append(driver.Rules, sarifRule{ID: c.Code, ShortDescription: sarifMessage{summary},
			DefaultConfiguration: sarifConfig{sarifLevel(c.Severity)}})
		return index[c.Code]
	}
	for _, c := range rules {
		addRule(c)
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, ColumnKind: "unicodeCodePoints", Artifacts: []sarifArtifact{}, Results: []sarifResult{}}
	// The artifacts are the files reported, in order, then the other files
	// that related locations are in.
	artifacts := map[string]int{}
	artifact := func(f *File) sarifArtifactLocation {
		uri := sarifURI(f.Path)
		i, ok := artifacts[uri]
		if !ok {
			i = len(run.Artifacts)
			artifacts[uri] = i
			run.Artifacts = append(run.Artifacts, sarifArtifact{Location: sarifArtifactLocation{URI: uri}})
		}
		return sarifArtifactLocation{URI: uri, Index: &i}
	}
	for _, r := range reports {
		artifact(r.File)
	}
	for _, r := range reports {
		f := r.File
		loc := func(in *File, s Span) sarifPhysicalLocation {
			return sarifPhysicalLocation{ArtifactLocation: artifact(in), Region: sarifRegionOf(in, s)}
		}
		for _, d := range r.Diagnostics {
			d = f.ResolveDiagnostic(d)
			msg := d.Message
			if d.Detail != "" {
				msg += "\n" + d.Detail
			}
			res := sarifResult{
				RuleID:    d.Code,
				RuleIndex: addRule(CodeInfo{Code: d.Code, Severity: d.Severity}),
				Level:     sarifLevel(d.Severity),
				Message:   sarifMessage{msg},
				Locations: []sarifLocation{{PhysicalLocation: loc(f, d.Span)}},
			}
			for i, rel := range d.Related {
				id := i + 1
				res.RelatedLocations = append(res.RelatedLocations, sarifLocation{ID: &id, PhysicalLocation: loc(rel.In(f), rel.Span), Message: &sarifMessage{rel.Message}})
			}
			for _, fx := range d.Fixes {
				ch := sarifArtifactChange{ArtifactLocation: artifact(f)}
				for _, ed := range fx.Edits {
					ch.Replacements = append(ch.Replacements, sarifReplacement{DeletedRegion: sarifRegionOf(f, ed.Span), InsertedContent: sarifMessage{ed.NewText}})
				}
				res.Fixes = append(res.Fixes, sarifFix{Description: sarifMessage{fx.Title}, ArtifactChanges: []sarifArtifactChange{ch}})
			}
			run.Results = append(run.Results, res)
		}
	}
	run.Tool.Driver = driver
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

// sarifRegionOf converts a span to a region; the end column is the column
// after the last character.
func sarifRegionOf(f *File, s Span) sarifRegion {
	start := f.OffsetPosition(s.Start)
	end := f.OffsetPosition(max(s.End, s.Start))
	return sarifRegion{StartLine: start.Line, StartColumn: start.Column, EndLine: end.Line, EndColumn: end.Column}
}
