// Gram highlighting in CodeMirror: the VS Code extension's TextMate grammar
// (imported from editors/vscode/syntaxes when the page is bundled) run by
// textmate.js inside a StreamLanguage, each token's innermost scope mapped
// to a highlighting tag.
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";
import grammar from "../../../editors/vscode/syntaxes/gram.tmLanguage.json";
import { compileGrammar } from "./textmate.js";

const { initial, tokenizeLine } = compileGrammar(grammar);

// Scope prefixes, most specific first, and the token each becomes.
const scopeTokens = [
  ["comment", "gramComment"],
  ["constant.character.escape", "gramEscape"],
  ["invalid", "gramInvalid"],
  ["punctuation.definition.string", "gramString"],
  ["punctuation.definition.comment", "gramComment"],
  ["string", "gramString"],
  ["keyword.other.label", "gramKeyword"],
  ["keyword.other.unit", "gramUnit"],
  ["keyword.operator", "gramOperator"],
  ["support.type", "gramType"],
  ["entity.name.type", "gramLabel"],
  ["entity.name.tag", "gramTag"],
  ["storage.modifier", "gramAnnotation"],
  ["variable.other.identity", "gramIdentity"],
  ["variable.other.reference", "gramReference"],
  ["variable.other.property", "gramProperty"],
  ["constant.numeric", "gramNumber"],
  ["constant.language", "gramBool"],
  ["constant.other", "gramSymbol"],
  ["punctuation.section", "gramBracket"],
  ["punctuation", "gramPunctuation"],
];

/** The token of a list of scopes: that of the innermost scope that has one. */
export function tokenOf(scopes) {
  for (let i = scopes.length - 1; i >= 0; i--) {
    for (const [prefix, token] of scopeTokens) {
      if (scopes[i] === prefix || scopes[i].startsWith(prefix + ".")) {
        return token;
      }
    }
  }
  return null;
}

const tokenTable = {
  gramComment: t.lineComment,
  gramEscape: t.escape,
  gramInvalid: t.invalid,
  gramString: t.string,
  gramKeyword: t.keyword,
  gramUnit: t.unit,
  gramOperator: t.operator,
  gramType: t.standard(t.typeName),
  gramLabel: t.typeName,
  gramTag: t.tagName,
  gramAnnotation: t.annotation,
  gramIdentity: t.definition(t.variableName),
  gramReference: t.variableName,
  gramProperty: t.propertyName,
  gramNumber: t.number,
  gramBool: t.bool,
  gramSymbol: t.atom,
  gramBracket: t.bracket,
  gramPunctuation: t.punctuation,
};

/** The gram language for CodeMirror. */
export const gramLanguage = StreamLanguage.define({
  name: "gram",
  startState: () => ({ stack: initial, tokens: null, line: null, i: 0 }),
  copyState: (s) => ({ ...s }),
  token(stream, state) {
    if (stream.sol() || state.line !== stream.string) {
      const r = tokenizeLine(stream.string, state.stack);
      state.stack = r.stack;
      state.tokens = r.tokens;
      state.line = stream.string;
      state.i = 0;
    }
    const toks = state.tokens;
    while (state.i < toks.length && toks[state.i].end <= stream.pos) {
      state.i++;
    }
    const tok = toks[state.i];
    if (!tok) {
      stream.skipToEnd();
      return null;
    }
    stream.pos = tok.end;
    return tokenOf(tok.scopes);
  },
  blankLine(state) {
    state.stack = tokenizeLine("", state.stack).stack;
    state.tokens = null;
    state.line = null;
  },
  tokenTable,
  languageData: { commentTokens: { line: "//" } },
});

/** The playground's colours, light. */
export const gramHighlight = syntaxHighlighting(
  HighlightStyle.define([
    { tag: t.lineComment, color: "#6a737d", fontStyle: "italic" },
    { tag: [t.string, t.escape], color: "#0a7f3f" },
    { tag: t.invalid, color: "#d1242f", textDecoration: "underline" },
    { tag: t.keyword, color: "#8250df", fontWeight: "bold" },
    { tag: [t.unit, t.operator], color: "#cf222e" },
    { tag: t.standard(t.typeName), color: "#0550ae" },
    { tag: t.typeName, color: "#953800" },
    { tag: [t.tagName, t.annotation], color: "#8250df" },
    { tag: t.definition(t.variableName), color: "#24292f", fontWeight: "bold" },
    { tag: t.variableName, color: "#116329" },
    { tag: t.propertyName, color: "#0550ae" },
    { tag: [t.number, t.bool, t.atom], color: "#0a3069" },
    { tag: [t.bracket, t.punctuation], color: "#57606a" },
  ]),
);
