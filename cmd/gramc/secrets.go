package main

// The secrets of a gramc process and their masking: every key the process
// holds (see [replay.ProcessSecrets]) is masked in everything it writes.

import (
	"os"
	"strings"

	"github.com/gramlang/gram/runtime/replay"
)

// protect masks the secrets of the run in everything the command writes:
// call it before anything is printed. It returns the secrets.
func (o *runOptions) protect(e *env) []string {
	urls := []string{o.baseURL, os.Getenv("OPENAI_BASE_URL")}
	for _, s := range o.mcp {
		urls = append(urls, s.URL)
	}
	secrets := replay.ProcessSecrets(os.Environ(), o.headers, urls...)
	for _, s := range o.bound.Secrets {
		if s = strings.TrimSpace(s); len(s) >= 8 {
			secrets = append(secrets, s)
		}
	}
	r := replay.NewRedactor(secrets...)
	e.stdout = r.Writer(e.stdout)
	e.stderr = r.Writer(e.stderr)
	return secrets
}
