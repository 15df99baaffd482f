package main

// SARIF 2.1.0 output for `gramc check --format sarif`, the format code-scanning
// UIs read. One run, with a rule per diagnostic code (the catalogue first, in
// a fixed order, so rule indexes are stable), one result per diagnostic, and
// regions in 1-based lines and columns counted in Unicode code points.

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// parserCodes describes the codes the parser reports.
var parserCodes = []schema.CodeInfo{
	{Code: "syntax-error", Severity: diag.Error, Summary: "The text is not valid gram notation."},
	{Code: "invalid-utf8", Severity: diag.Error, Summary: "A string holds bytes that are not UTF-8."},
	{Code: project.CodeBinaryFile, Severity: diag.Error, Summary: "The file holds binary data, not gram text."},
	{Code: "duplicate-definition", Severity: diag.Error, Summary: "An identity is defined twice in one scope."},
	{Code: "undefined-reference", Severity: diag.Error, Summary: "A reference to an identity that is not defined."},
	{Code: "self-reference", Severity: diag.Error, Summary: "A pattern that contains itself."},
	{Code: "duplicate-key", Severity: diag.Error, Summary: "A key appears twice in one record or map."},
	{Code: diag.CodeTooManyDiagnostics, Severity: diag.Info, Summary: "More diagnostics were found than are shown."},
}

// fileCodes describes the codes gramc reports of a file as a whole, after
// the catalogue so that adding one keeps the other rules' indexes.
var fileCodes = []schema.CodeInfo{
	{Code: codeLeftoverBackup, Severity: diag.Error, Summary: "An interrupted gramc fmt -w left a backup of the file, which may be half-written."},
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
func sarifLevel(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
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

// writeSARIF writes the reports as a SARIF 2.1.0 log.
func writeSARIF(w io.Writer, reports []diag.FileReport) error {
	driver := sarifDriver{Name: "gramc", Version: buildinfo.Version(), InformationURI: "https://github.com/gramlang/gram", Rules: []sarifRule{}}
	index := map[string]int{}
	addRule := func(c schema.CodeInfo) int {
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
	for _, c := range parserCodes {
		addRule(c)
	}
	for _, c := range schema.Codes {
		addRule(c)
	}
	for _, c := range fileCodes {
		addRule(c)
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, ColumnKind: "unicodeCodePoints", Artifacts: []sarifArtifact{}, Results: []sarifResult{}}
	for ai, r := range reports {
		f := r.File
		uri := sarifURI(f.Path)
		run.Artifacts = append(run.Artifacts, sarifArtifact{Location: sarifArtifactLocation{URI: uri}})
		loc := func(s diag.Span) sarifPhysicalLocation {
			return sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: uri, Index: &ai}, Region: sarifRegionOf(f, s)}
		}
		for _, d := range r.Diagnostics {
			msg := d.Message
			if d.Detail != "" {
				msg += "\n" + d.Detail
			}
			res := sarifResult{
				RuleID:    d.Code,
				RuleIndex: addRule(schema.CodeInfo{Code: d.Code, Severity: d.Severity}),
				Level:     sarifLevel(d.Severity),
				Message:   sarifMessage{msg},
				Locations: []sarifLocation{{PhysicalLocation: loc(d.Span)}},
			}
			for i, rel := range d.Related {
				id := i + 1
				res.RelatedLocations = append(res.RelatedLocations, sarifLocation{ID: &id, PhysicalLocation: loc(rel.Span), Message: &sarifMessage{rel.Message}})
			}
			for _, fx := range d.Fixes {
				ch := sarifArtifactChange{ArtifactLocation: sarifArtifactLocation{URI: uri, Index: &ai}}
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
func sarifRegionOf(f *diag.File, s diag.Span) sarifRegion {
	start := f.OffsetPosition(s.Start)
	end := f.OffsetPosition(max(s.End, s.Start))
	return sarifRegion{StartLine: start.Line, StartColumn: start.Column, EndLine: end.Line, EndColumn: end.Column}
}
