// Package grammar is the syntax of gram notation, and only that: it turns
// text into tokens and the tokens of one top-level unit (the header record or
// one top-level pattern) into a syntax tree whose every node knows its exact
// byte span. Splitting a file into units, recovering from errors, lowering
// and checking the trees are the parser package's.
//
// # Entry points
//
//   - [NewScanner] and [NewScannerAt] give the tokens of a text one at a
//     time, with the comments and lexical errors seen.
//   - [ParseFast] parses a well-formed unit by hand along the grammar's
//     productions; [ParseUnit] parses any unit with the participle grammar
//     (the structs of ast.go, [EBNF]) and gives the precise [SyntaxError] of
//     one that does not parse.
//   - [Inspect] walks a syntax tree ([Unit] and the nodes below it) in source
//     order; [InspectTokens] walks the tokens of a range of a text, for text
//     that need not parse.
//   - [Unit.Rebased] gives a unit parsed again its own text and its positions.
//
// The files follow the constructs: lexer.go, lexstrings.go and lextokens.go
// (tokens), ast.go (the grammar
// structs), subject.go, path.go, arrow.go, ref.go, record.go and value.go
// (the productions parsed by hand), token.go ([Tok], the token kept in the
// tree), errors.go, fast.go, parse.go, walk.go and rebase.go.
package grammar
