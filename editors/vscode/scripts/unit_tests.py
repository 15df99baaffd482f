#!/usr/bin/env python3
"""Writes test/testdata/unit/scopes.gram: scope assertions for vscode-tmgrammar-test.

Each case is a source line and the scopes expected on parts of it, given as
(text, nth occurrence, scope); the caret lines are computed, not hand-counted.
Run from editors/vscode: python3 scripts/unit_tests.py.
"""
import os

CASES = [
    ('(alice:Person {name: "Alice", age: 42})', [
        ("alice", 0, "variable.other.identity.gram"),
        (":", 0, "punctuation.separator.label.gram"),
        ("Person", 0, "entity.name.type.label.gram"),
        ("name", 0, "variable.other.property.gram"),
        ('"Alice"', 0, "string.quoted.double.gram"),
        ("42", 0, "constant.numeric.integer.gram"),
    ]),
    ("(a)-[r:KNOWS]->(b)<==(c)~~>(d)", [
        ("-", 0, "keyword.operator.arrow.gram"),
        ("r", 0, "variable.other.identity.gram"),
        ("KNOWS", 0, "entity.name.type.label.gram"),
        ("->", 0, "keyword.operator.arrow.gram"),
        ("<=", 0, "keyword.operator.arrow.gram"),
        ("~>", 0, "keyword.operator.arrow.gram"),
    ]),
    ('[t:Tool {description: "d"} | (p::String {default: "x"})==>(::Integer)]', [
        ("t", 0, "variable.other.identity.gram"),
        ("Tool", 0, "keyword.other.label.gram"),
        ("description", 0, "variable.other.property.gram"),
        ("|", 0, "punctuation.separator.pipe.gram"),
        ("::", 0, "punctuation.separator.label.gram"),
        ("String", 0, "support.type.primitive.gram"),
        ("=>", 0, "keyword.operator.arrow.gram"),
        ("Integer", 0, "support.type.primitive.gram"),
    ]),
    ("[g | a, `b c`, 7]", [
        ("a", 0, "variable.other.reference.gram"),
        ("`b c`", 0, "variable.other.reference.gram"),
        ("7", 0, "variable.other.reference.gram"),
    ]),
    ('({k: 1..10, m: 12kg, h: 0xFF, o: 017, x: 2.5, t: true, s: sym, d: date`2024`, e: "\\n", q: \'\\u\'})', [
        ("1", 0, "constant.numeric.integer.gram"),
        ("..", 0, "keyword.operator.range.gram"),
        ("12", 0, "constant.numeric.measurement.gram"),
        ("kg", 0, "keyword.other.unit.gram"),
        ("0xFF", 0, "constant.numeric.hex.gram"),
        ("017", 0, "constant.numeric.octal.gram"),
        ("2.5", 0, "constant.numeric.decimal.gram"),
        ("true", 0, "constant.language.boolean.gram"),
        ("sym", 0, "constant.other.symbol.gram"),
        ("date", 0, "entity.name.tag.gram"),
        ("2024", 0, "string.quoted.other.tagged.gram"),
        ("\\n", 0, "constant.character.escape.gram"),
        ("\\u", 0, "invalid.illegal.escape.gram"),
    ]),
    ("({`a key`: 'x', \"b key\": [1, 2]})", [
        ("`a key`", 0, "variable.other.property.quoted.gram"),
        ("'x'", 0, "string.quoted.single.gram"),
        ('"b key"', 0, "variable.other.property.quoted.gram"),
        ("[", 0, "punctuation.section.array.begin.gram"),
    ]),
    ('@desc("x") @@id:L (a)', [
        ("desc", 0, "storage.modifier.annotation.gram"),
        ('"x"', 0, "string.quoted.double.gram"),
        ("@@", 0, "storage.modifier.annotation.identified.gram"),
        ("id", 0, "variable.other.identity.gram"),
        ("L", 0, "entity.name.type.label.gram"),
    ]),
    ("(a {t: `back`}) // a comment", [
        ("`back`", 0, "string.quoted.other.backtick.gram"),
        ("// a comment", 0, "comment.line.double-slash.gram"),
    ]),
]


def find(line, text, nth):
    i = -1
    for _ in range(nth + 1):
        i = line.index(text, i + 1)
    return i


def main():
    out = ['// SYNTAX TEST "source.gram" "scopes of gram notation"']
    for line, checks in CASES:
        line = "  " + line  # every column is then reachable by a caret line
        out.append(line)
        for text, nth, scope in checks:
            col = find(line, text, nth)
            if col < 2:
                out.append("// " + "<" + "-" * len(text) + " " + scope if col == 0 else "//" + "^" * len(text) + " " + scope)
            else:
                out.append("//" + " " * (col - 2) + "^" * len(text) + " " + scope)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "test", "testdata", "unit", "scopes.gram"), "w") as f:
        f.write("\n".join(out) + "\n")


main()
