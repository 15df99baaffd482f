package replay

import (
	"strings"
	"testing"
)

// TestProcessSecrets: the secrets of a process are the values of its
// credential-like variables, headers and URL credentials; ordinary
// variables whose names merely contain such letters are not.
func TestProcessSecrets(t *testing.T) {
	env := []string{"OPENAI_API_KEY=sk-abcdefgh1234", "GITHUB_TOKEN=ghp_0123456789", "DB_PASSWORD=hunter2hunter2",
		"GIT_AUTHOR_NAME=Jane Q Public", "KEYBOARD_LAYOUT=american-intl", "HOME=/home/someone", "SHORT_KEY=abc"}
	headers := map[string][]string{"Authorization": {"Bearer tok-12345678"}}
	got := ProcessSecrets(env, headers, "https://user:pa55word99@example.com/mcp?access_token=qwertyuiop&page=12345678")
	want := []string{"sk-abcdefgh1234", "ghp_0123456789", "hunter2hunter2", "Bearer tok-12345678", "tok-12345678", "pa55word99", "qwertyuiop"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("secrets\n got %q\nwant %q", got, want)
	}
}
