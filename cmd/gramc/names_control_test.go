package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamesShowControlCharacters checks that an agent name with a
// terminal escape (one that clears the screen) is shown with visible
// characters in the text outputs that print names, never sent raw.
func TestNamesShowControlCharacters(t *testing.T) {
	tool := "[t:Tool {description: \"x\"} | (p::String)==>(::String)]\n"
	agent := "[`a\x1b[2Jb`:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"hi\"} | t]\n"
	// Two directories: the files of one form a single package.
	oldFile, newFile := filepath.Join(t.TempDir(), "old.gram"), filepath.Join(t.TempDir(), "e.gram")
	for path, text := range map[string]string{oldFile: tool, newFile: tool + agent} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"cost", newFile},
		{"diff", oldFile, newFile},
		{"schema", "--agent", "nope", newFile},
	} {
		code, out, errOut := gramc(t, "", args...)
		if strings.Contains(out+errOut, "\x1b") || !strings.Contains(out+errOut, "a\u241b[2Jb") {
			t.Errorf("gramc %s: exit %d, want the name shown as a\u241b[2Jb and no escape\nstdout:\n%q\nstderr:\n%q",
				strings.Join(args, " "), code, out, errOut)
		}
	}
}
