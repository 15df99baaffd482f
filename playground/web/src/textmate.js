// A TextMate grammar run with JavaScript regular expressions, for the
// constructs the gram grammar of the VS Code extension uses
// (editors/vscode/syntaxes/gram.tmLanguage.json): match rules with
// captures; begin/end rules with beginCaptures, endCaptures, name,
// contentName and patterns; includes of the repository (#name) and of
// $self. An include of another grammar (the Markdown inside ```md strings)
// is left out: that text keeps the string's scopes.
//
// As in TextMate, each line is scanned from left to right: at each step the
// rule that matches earliest wins, the innermost open rule's end pattern
// first among equals, then the patterns in order. The state between lines
// is the stack of open begin/end rules, an immutable list, so an editor can
// keep it per line. test/unit/textmate.test.mjs checks the scopes against
// the extension's snapshots, which vscode-textmate made.

/** @typedef {{start: number, end: number, scopes: string[]}} Token */

/** Compiles a grammar (the parsed JSON); returns its tokenizer. */
export function compileGrammar(grammar) {
  const repo = grammar.repository ?? {};
  const compiled = new Map();
  const scopeName = grammar.scopeName;

  const regex = (src) => new RegExp(src, "dg");

  function compileRule(rule) {
    if (compiled.has(rule)) {
      return compiled.get(rule);
    }
    const out = { name: rule.name, contentName: rule.contentName };
    compiled.set(rule, out);
    if (rule.include) {
      out.include = rule.include;
    } else if (rule.match !== undefined) {
      out.match = regex(rule.match);
      out.captures = rule.captures;
    } else if (rule.begin !== undefined) {
      out.begin = regex(rule.begin);
      out.end = regex(rule.end);
      out.beginCaptures = rule.beginCaptures ?? rule.captures;
      out.endCaptures = rule.endCaptures ?? rule.captures;
    }
    out.rawPatterns = rule.patterns ?? [];
    return out;
  }

  const self = compileRule({ patterns: grammar.patterns });

  function resolve(include) {
    if (include === "$self" || include === "$base") {
      return self;
    }
    if (include.startsWith("#")) {
      const r = repo[include.slice(1)];
      return r ? compileRule(r) : null;
    }
    return null; // another grammar
  }

  // The match and begin rules a rule's patterns stand for, includes
  // followed, in order; computed once per rule.
  function candidates(rule) {
    if (rule.flat) {
      return rule.flat;
    }
    const flat = [];
    const seen = new Set();
    const add = (r) => {
      if (!r || seen.has(r)) {
        return;
      }
      seen.add(r);
      if (r.include) {
        add(resolve(r.include));
      } else if (r.match || r.begin) {
        flat.push(r);
      } else {
        for (const p of r.rawPatterns) {
          add(compileRule(p));
        }
      }
    };
    for (const p of rule.rawPatterns) {
      add(compileRule(p));
    }
    rule.flat = flat;
    return flat;
  }

  /** The first match of re in line at or after pos, or null. */
  function search(re, line, pos) {
    re.lastIndex = pos;
    return re.exec(line);
  }

  /** Pushes the tokens of a match: scopes, plus the captures' names. */
  function pushMatch(tokens, m, scopes, captures) {
    const start = m.index;
    const end = m.index + m[0].length;
    if (end === start) {
      return;
    }
    const per = [];
    for (let i = start; i < end; i++) {
      per.push(scopes);
    }
    if (captures) {
      for (const [key, cap] of Object.entries(captures)) {
        const k = Number(key);
        const range = m.indices[k];
        if (!cap.name || !range || range[0] === range[1]) {
          continue;
        }
        for (let i = range[0]; i < range[1]; i++) {
          per[i - start] = [...per[i - start], cap.name];
        }
      }
    }
    let runStart = start;
    for (let i = start + 1; i <= end; i++) {
      if (i === end || per[i - start] !== per[i - 1 - start]) {
        tokens.push({ start: runStart, end: i, scopes: per[runStart - start] });
        runStart = i;
      }
    }
  }

  const initial = { rule: self, scopes: [scopeName], outer: [scopeName], parent: null };

  /**
   * Tokenizes one line (without its line break) from the state stack;
   * returns the tokens, covering the line, and the state after it.
   */
  function tokenizeLine(line, stack = initial) {
    const tokens = [];
    let pos = 0;
    let stuck = 0;
    for (;;) {
      const frame = stack;
      let best = null;
      let bestRule = null;
      let isEnd = false;
      if (frame.endRe) {
        best = search(frame.endRe, line, pos);
        isEnd = best !== null;
      }
      for (const r of candidates(frame.rule)) {
        const m = search(r.match ?? r.begin, line, pos);
        if (m && (best === null || m.index < best.index)) {
          best = m;
          bestRule = r;
          isEnd = false;
        }
        if (best && best.index === pos && !isEnd && bestRule) {
          break; // nothing matches earlier
        }
      }
      if (!best) {
        if (pos < line.length) {
          tokens.push({ start: pos, end: line.length, scopes: frame.scopes });
        }
        break;
      }
      if (best.index > pos) {
        tokens.push({ start: pos, end: best.index, scopes: frame.scopes });
      }
      const after = best.index + best[0].length;
      if (after === pos) {
        // A match of nothing: allowed a few times (a rule closing at a
        // lookahead), never forever.
        if (++stuck > 64) {
          if (pos < line.length) {
            tokens.push({ start: pos, end: line.length, scopes: frame.scopes });
          }
          break;
        }
      } else {
        stuck = 0;
      }
      if (isEnd) {
        pushMatch(tokens, best, frame.outer, frame.rule.endCaptures);
        stack = frame.parent;
      } else if (bestRule.match) {
        const scopes = bestRule.name ? [...frame.scopes, bestRule.name] : frame.scopes;
        pushMatch(tokens, best, scopes, bestRule.captures);
      } else {
        const outer = bestRule.name ? [...frame.scopes, bestRule.name] : frame.scopes;
        pushMatch(tokens, best, outer, bestRule.beginCaptures);
        const scopes = bestRule.contentName ? [...outer, bestRule.contentName] : outer;
        stack = { rule: bestRule, endRe: bestRule.end, scopes, outer, parent: frame };
      }
      pos = after;
      if (pos >= line.length && !(stack.endRe && zeroWidthAtEnd(stack.endRe, line))) {
        break;
      }
    }
    return { tokens, stack };
  }

  /** Whether re matches nothing at the end of line (`$`, a lookahead). */
  function zeroWidthAtEnd(re, line) {
    const m = search(re, line, line.length);
    return m !== null && m[0].length === 0 && m.index === line.length;
  }

  return { initial, tokenizeLine };
}
