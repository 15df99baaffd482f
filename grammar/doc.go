// Package grammar is the syntax of gram notation: the hand-written lexer
// ([Lex], [Scanner]), the syntax tree ([Unit] and the nodes below it, each
// with its exact byte span) and the participle grammar that states the
// language. [ParseFast] parses a well-formed top-level unit by hand along the
// grammar's productions; [ParseUnit] parses any unit with the grammar and gives
// the precise error of one that does not parse. The parser package splits
// files into units, recovers from errors and lowers the trees.
package grammar
