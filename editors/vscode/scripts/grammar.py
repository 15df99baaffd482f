#!/usr/bin/env python3
"""Writes syntaxes/gram.tmLanguage.json, the TextMate grammar of gram notation.

Run from editors/vscode: python3 scripts/grammar.py. The grammar is kept here as
Python data so its regular expressions stay readable; the JSON is generated.
"""
import json
import os

SYM = r"[A-Za-z_][A-Za-z0-9_.@-]*"
NUM = r"-?(?:0|[1-9][0-9]*)"
TYPES = "String|Integer|Number|Boolean|Object|Array|Text|Int|Double|Bool"
KEYWORDS = "Agent|Tool|Record"
ESC = r"\\[\\'\"`/bfnrt]"
BADESC = r"\\."

def quoted(q, name):
    return {
        "name": name,
        "begin": q,
        "end": q + "|$",
        "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.gram"}},
        "endCaptures": {"0": {"name": "punctuation.definition.string.end.gram"}},
        "patterns": [
            {"name": "constant.character.escape.gram", "match": ESC},
            {"name": "invalid.illegal.escape.gram", "match": BADESC},
        ],
    }

grammar = {
    "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
    "name": "Gram",
    "scopeName": "source.gram",
    "fileTypes": ["gram"],
    "patterns": [
        {"include": "#comment"},
        {"include": "#annotation"},
        {"include": "#record"},
        {"include": "#subject-pattern"},
        {"include": "#node"},
        {"include": "#arrow"},
        {"include": "#punctuation"},
    ],
    "repository": {
        "comment": {
            "name": "comment.line.double-slash.gram",
            "begin": "//",
            "end": "$",
            "beginCaptures": {"0": {"name": "punctuation.definition.comment.gram"}},
        },
        "punctuation": {
            "patterns": [
                {"name": "punctuation.separator.comma.gram", "match": ","},
                {"name": "punctuation.separator.pipe.gram", "match": r"\|"},
            ]
        },
        # @@id:Label  and  @key(value)
        "annotation": {
            "patterns": [
                {
                    "match": r"(@@)\s*(" + SYM + r"|`(?:[^`\\]|\\.)*`|" + NUM + r")?",
                    "captures": {
                        "1": {"name": "storage.modifier.annotation.identified.gram"},
                        "2": {"name": "variable.other.identity.gram"},
                    },
                },
                {
                    "begin": r"(@)(" + SYM + r")\s*(\()",
                    "end": r"\)",
                    "beginCaptures": {
                        "1": {"name": "punctuation.definition.annotation.gram"},
                        "2": {"name": "storage.modifier.annotation.gram"},
                        "3": {"name": "punctuation.section.parens.begin.gram"},
                    },
                    "endCaptures": {"0": {"name": "punctuation.section.parens.end.gram"}},
                    "name": "meta.annotation.gram",
                    "patterns": [{"include": "#comment"}, {"include": "#value"}],
                },
                {"include": "#labels"},
            ]
        },
        # ( subject )
        "node": {
            "name": "meta.node.gram",
            "begin": r"\(",
            "end": r"\)",
            "beginCaptures": {"0": {"name": "punctuation.section.parens.begin.gram"}},
            "endCaptures": {"0": {"name": "punctuation.section.parens.end.gram"}},
            "patterns": [{"include": "#subject"}],
        },
        # [ subject | elements ]
        "subject-pattern": {
            "name": "meta.pattern.gram",
            "begin": r"\[",
            "end": r"\]",
            "beginCaptures": {"0": {"name": "punctuation.section.brackets.begin.gram"}},
            "endCaptures": {"0": {"name": "punctuation.section.brackets.end.gram"}},
            "patterns": [
                {"include": "#comment"},
                {
                    "begin": r"\|",
                    "end": r"(?=\])",
                    "beginCaptures": {"0": {"name": "punctuation.separator.pipe.gram"}},
                    "name": "meta.pattern.elements.gram",
                    "patterns": [
                        {"include": "#comment"},
                        {"include": "#subject-pattern"},
                        {"include": "#node"},
                        {"include": "#arrow"},
                        {"name": "punctuation.separator.comma.gram", "match": ","},
                        {"name": "variable.other.reference.gram", "match": SYM + r"|`(?:[^`\\]|\\.)*`|" + NUM},
                    ],
                },
                {"include": "#subject"},
            ],
        },
        # identifier, labels, record
        "subject": {
            "patterns": [
                {"include": "#comment"},
                {"include": "#labels"},
                {"include": "#record"},
                {"name": "variable.other.identity.gram", "match": r"`(?:[^`\\]|\\.)*`"},
                {"name": "variable.other.identity.gram", "match": r"(?<![\w.@-])" + SYM + "|" + NUM + r"(?![A-Za-z])"},
            ]
        },
        "labels": {
            "patterns": [
                {
                    "match": r"(::?)\s*(" + KEYWORDS + r")(?![\w.@-])",
                    "captures": {
                        "1": {"name": "punctuation.separator.label.gram"},
                        "2": {"name": "keyword.other.label.gram"},
                    },
                },
                {
                    "match": r"(::?)\s*(" + TYPES + r")(?![\w.@-])",
                    "captures": {
                        "1": {"name": "punctuation.separator.label.gram"},
                        "2": {"name": "support.type.primitive.gram"},
                    },
                },
                {
                    "match": r"(::?)\s*(" + SYM + r"|`(?:[^`\\]|\\.)*`)",
                    "captures": {
                        "1": {"name": "punctuation.separator.label.gram"},
                        "2": {"name": "entity.name.type.label.gram"},
                    },
                },
            ]
        },
        # halves of an arrow, with an optional bracketed subject between them
        "arrow": {
            "patterns": [
                {
                    "name": "meta.arrow.gram",
                    "begin": r"(<-|<=|<~|-|=|~)\s*(\[)",
                    "end": r"(\])\s*(->|=>|~>|-|=|~)",
                    "beginCaptures": {
                        "1": {"name": "keyword.operator.arrow.gram"},
                        "2": {"name": "punctuation.section.brackets.begin.gram"},
                    },
                    "endCaptures": {
                        "1": {"name": "punctuation.section.brackets.end.gram"},
                        "2": {"name": "keyword.operator.arrow.gram"},
                    },
                    "patterns": [{"include": "#subject"}],
                },
                {"name": "keyword.operator.arrow.gram", "match": r"<-|<=|<~|->|=>|~>|-|=|~"},
            ]
        },
        # { key: value, ... } records and maps
        "record": {
            "name": "meta.record.gram",
            "begin": r"\{",
            "end": r"\}",
            "beginCaptures": {"0": {"name": "punctuation.section.braces.begin.gram"}},
            "endCaptures": {"0": {"name": "punctuation.section.braces.end.gram"}},
            "patterns": [
                {"include": "#comment"},
                {
                    "match": r"(" + SYM + r")\s*(::?)",
                    "captures": {
                        "1": {"name": "variable.other.property.gram"},
                        "2": {"name": "punctuation.separator.key-value.gram"},
                    },
                },
                {
                    "match": r"(\"(?:[^\"\\]|\\.)*\"|`(?:[^`\\]|\\.)*`)\s*(::?)",
                    "captures": {
                        "1": {"name": "variable.other.property.quoted.gram"},
                        "2": {"name": "punctuation.separator.key-value.gram"},
                    },
                },
                {"name": "punctuation.separator.comma.gram", "match": ","},
                {"include": "#value"},
            ],
        },
        "array": {
            "name": "meta.array.gram",
            "begin": r"\[",
            "end": r"\]",
            "beginCaptures": {"0": {"name": "punctuation.section.array.begin.gram"}},
            "endCaptures": {"0": {"name": "punctuation.section.array.end.gram"}},
            "patterns": [
                {"include": "#comment"},
                {"name": "punctuation.separator.comma.gram", "match": ","},
                {"include": "#value"},
            ],
        },
        "value": {
            "patterns": [
                {"include": "#fenced"},
                {"include": "#tagged"},
                quoted('"', "string.quoted.double.gram"),
                quoted("'", "string.quoted.single.gram"),
                quoted("`", "string.quoted.other.backtick.gram"),
                {"include": "#number"},
                {"name": "constant.language.boolean.gram", "match": r"\b(?:true|false)\b(?![.@-])"},
                {"name": "constant.other.symbol.gram", "match": SYM},
                {"include": "#array"},
                {"include": "#record"},
            ]
        },
        "fenced": {
            "patterns": [
                {
                    "name": "string.quoted.fenced.markdown.gram",
                    "begin": r"(```)(md|markdown)[ \t]*$",
                    "end": r"```",
                    "beginCaptures": {
                        "1": {"name": "punctuation.definition.string.begin.gram"},
                        "2": {"name": "entity.name.tag.gram"},
                    },
                    "endCaptures": {"0": {"name": "punctuation.definition.string.end.gram"}},
                    "contentName": "meta.embedded.block.markdown",
                    "patterns": [{"include": "text.html.markdown"}],
                },
                {
                    "name": "string.quoted.fenced.tagged.gram",
                    "begin": r"(```)(" + SYM + r")[ \t]*$",
                    "end": r"```",
                    "beginCaptures": {
                        "1": {"name": "punctuation.definition.string.begin.gram"},
                        "2": {"name": "entity.name.tag.gram"},
                    },
                    "endCaptures": {"0": {"name": "punctuation.definition.string.end.gram"}},
                },
                {
                    "name": "string.quoted.fenced.gram",
                    "begin": r"```",
                    "end": r"```",
                    "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.gram"}},
                    "endCaptures": {"0": {"name": "punctuation.definition.string.end.gram"}},
                },
            ]
        },
        "tagged": {
            "name": "string.quoted.other.tagged.gram",
            "begin": r"(" + SYM + r")(`)",
            "end": r"`|$",
            "beginCaptures": {
                "1": {"name": "entity.name.tag.gram"},
                "2": {"name": "punctuation.definition.string.begin.gram"},
            },
            "endCaptures": {"0": {"name": "punctuation.definition.string.end.gram"}},
            "patterns": [
                {"name": "constant.character.escape.gram", "match": ESC},
                {"name": "invalid.illegal.escape.gram", "match": BADESC},
            ],
        },
        "number": {
            "patterns": [
                {"name": "keyword.operator.range.gram", "match": r"\.\.\.?"},
                {"name": "constant.numeric.hex.gram", "match": r"\b0x[0-9A-Fa-f]+\b"},
                {
                    "match": r"(" + NUM + r")([A-Za-z]+)\b",
                    "captures": {
                        "1": {"name": "constant.numeric.measurement.gram"},
                        "2": {"name": "keyword.other.unit.gram"},
                    },
                },
                {"name": "constant.numeric.decimal.gram", "match": NUM + r"\.[0-9]+"},
                {"name": "constant.numeric.octal.gram", "match": r"\b0[0-7]+\b"},
                {"name": "constant.numeric.integer.gram", "match": NUM},
            ]
        },
    },
}

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "syntaxes", "gram.tmLanguage.json")
with open(out, "w") as f:
    json.dump(grammar, f, indent=2)
    f.write("\n")

# The injection grammar: ```gram (or ~~~gram) fenced code blocks inside
# Markdown files are highlighted with the gram grammar. The fence may be
# indented and longer than three characters; the closing fence is the same
# characters, at least as many.
markdown_injection = {
    "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
    "name": "Gram code blocks in Markdown",
    "scopeName": "markdown.gram.codeblock",
    "injectionSelector": "L:text.html.markdown",
    "patterns": [{"include": "#gram-code-block"}],
    "repository": {
        "gram-code-block": {
            "name": "markup.fenced_code.block.markdown",
            "begin": r"(^|\G)(\s*)(`{3,}|~{3,})\s*(?i:(gram)((?:\s+|:|,|\{|\?)[^`]*)?$)",
            "end": r"(^|\G)(\2|\s{0,3})(\3)\s*$",
            "beginCaptures": {
                "3": {"name": "punctuation.definition.markdown"},
                "4": {"name": "fenced_code.block.language.markdown"},
                "5": {"name": "fenced_code.block.language.attributes.markdown"},
            },
            "endCaptures": {"3": {"name": "punctuation.definition.markdown"}},
            "patterns": [
                {
                    "begin": r"(^|\G)(\s*)(.*)",
                    "while": r"(^|\G)(?!\s*([`~]{3,})\s*$)",
                    "contentName": "meta.embedded.block.gram",
                    "patterns": [{"include": "source.gram"}],
                }
            ],
        }
    },
}

out = os.path.join(here, "..", "syntaxes", "gram.markdown.tmLanguage.json")
with open(out, "w") as f:
    json.dump(markdown_injection, f, indent=2)
    f.write("\n")
