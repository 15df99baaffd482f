// Package contract compares two versions of a gram agent file as their
// callers see them, as buf breaking compares protobuf files: every change
// to a tool's, a record's or an agent's contract, classified as breaking
// for callers or safe, with its place in both versions.
//
// # Entry points
//
//   - [Diff] compares two compiled programs and returns a [Report]: its
//     [Change]s, each with a [Kind] (a stable kebab-case code such as
//     parameter-made-required), a verdict, what changed and where, in the
//     old file and in the new.
//   - [Kinds] lists the kinds with what each means.
//   - [ReadAt] and [ReadAgainst] read the old version of a file as it is
//     at a git revision (REV:PATH, or --against's .git#ref=REF).
//
// # Who the callers are
//
// A tool's callers are the models (and MCP clients) that call it: they send
// its parameters and read its return value. A change breaks them when the
// new version refuses a call the old one accepted (a parameter added as
// required, made required, removed, its type narrowed, an enum value
// removed, a constraint tightened, a default changed), or may return a
// value the old one never did (the return type widened, a returned
// record's field removed or made optional). The opposite changes are
// safe. Injected parameters are set by the host, never sent by a caller,
// so changing them is always safe; a parameter that becomes injected is
// removed for callers. A record's contract is where tools use it: a field
// change is judged for each use, as a parameter (what callers send) or as
// a return value (what they receive). An agent's callers rely on its name
// and its tools: removing either breaks them.
//
// Whether the new schema of a parameter accepts every value the old one
// did is decided by the compatibility engine that binding uses
// ([compat.Check]), in both directions; the structure around it (which
// parameter, which record field, which array's elements) is compared here,
// so each change is named and placed.
package contract
