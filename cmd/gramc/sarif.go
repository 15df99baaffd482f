package main

// SARIF 2.1.0 output for `gramc check --format sarif` (see
// [diag.WriteSARIF]): the rules are the catalogues of the packages that
// report the codes, in a fixed order, so rule indexes are stable.

import (
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format/inplace"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// gramcCodes describes the codes gramc reports of a file as a whole.
var gramcCodes = append([]diag.CodeInfo{
	{Code: project.CodeBinaryFile, Severity: diag.Error, Summary: "The file holds binary data, not gram text."},
}, inplace.Codes...)

// sarifCatalogue returns every code a check reports, each described by the
// package that reports it, in a fixed order so that rule indexes are
// stable: the parser's (the lexer's first), the diagnostic list's, the
// compiler's, the bindings file's, and gramc's own.
func sarifCatalogue() []diag.CodeInfo {
	return slices.Concat(parser.Codes, diag.Codes, schema.Codes, project.Codes, gramcCodes)
}

// sarifTool names gramc in SARIF logs.
func sarifTool() diag.SARIFTool {
	return diag.SARIFTool{Name: "gramc", Version: buildinfo.Version(), InformationURI: "https://github.com/gramlang/gram"}
}
