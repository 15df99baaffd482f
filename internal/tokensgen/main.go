// Command tokensgen converts a BPE rank table of the npm package
// js-tiktoken (MIT licence; its dist/ranks/NAME.js files) into the compact
// form package tokens embeds: for each rank from 0 up, the token's length
// as a uvarint and then its bytes, a length of 0 for a rank no token has,
// the whole compressed with DEFLATE.
//
// Usage, from the repository's root, after `npm pack js-tiktoken` and
// unpacking it in DIR:
//
//	go run ./internal/tokensgen DIR/package/dist/ranks/o200k_base.js tokens/data/o200k_base.bpe
//	go run ./internal/tokensgen DIR/package/dist/ranks/cl100k_base.js tokens/data/cl100k_base.bpe
package main

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: tokensgen RANKS.js OUT.bpe (RANKS.js: js-tiktoken's dist/ranks/NAME.js)")
		os.Exit(2)
	}
	if err := convert(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "tokensgen:", err)
		os.Exit(1)
	}
}

// convert reads the rank table in, a module whose default export is
// {"pat_str", "special_tokens", "bpe_ranks"}, and writes its compact form
// to out.
func convert(in, out string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	text := strings.TrimSpace(string(src))
	text = strings.TrimPrefix(text, "export default ")
	text = strings.TrimPrefix(text, "module.exports = ")
	text = strings.TrimSuffix(text, ";")
	var table struct {
		Ranks string `json:"bpe_ranks"`
	}
	if err := json.Unmarshal([]byte(text), &table); err != nil {
		return fmt.Errorf("%s: not a js-tiktoken rank table (%v); give dist/ranks/NAME.js of the npm package js-tiktoken", in, err)
	}
	tokens, err := parseRanks(table.Ranks)
	if err != nil {
		return fmt.Errorf("%s: %v", in, err)
	}
	var raw []byte
	for _, tok := range tokens {
		raw = binary.AppendUvarint(raw, uint64(len(tok)))
		raw = append(raw, tok...)
	}
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// parseRanks reads js-tiktoken's bpe_ranks: lines of "PREFIX OFFSET TOK
// TOK ...", each TOK base64, the ranks counting up from OFFSET. It returns
// the tokens by rank, nil where a rank has none.
func parseRanks(s string) ([][]byte, error) {
	var tokens [][]byte
	for ln, line := range strings.Split(s, "\n") {
		fields := strings.Split(line, " ")
		if len(fields) < 2 {
			continue
		}
		off, err := strconv.Atoi(fields[1])
		if err != nil {
			return nil, fmt.Errorf("line %d of bpe_ranks: offset %q is not a number", ln+1, fields[1])
		}
		for i, f := range fields[2:] {
			tok, err := base64.StdEncoding.DecodeString(f)
			if err != nil {
				return nil, fmt.Errorf("line %d of bpe_ranks: token %q is not base64", ln+1, f)
			}
			r := off + i
			for len(tokens) <= r {
				tokens = append(tokens, nil)
			}
			if tokens[r] != nil {
				return nil, fmt.Errorf("line %d of bpe_ranks: rank %d given twice", ln+1, r)
			}
			tokens[r] = tok
		}
	}
	return tokens, nil
}
