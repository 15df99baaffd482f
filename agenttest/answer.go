package agenttest

// Checking a turn's answer: contains, matches, equals and JSON checks, and
// the string formats (uuid, email, date-time, ...) of JSON Schema.

import (
	"cmp"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gramlang/gram/schema"
)

// checkAnswer checks the final answer.
func checkAnswer(a *schema.AnswerCheck, answer string) (Failure, bool) {
	f := Failure{Kind: "answer"}
	switch a.Kind {
	case schema.AnswerContains:
		if strings.Contains(answer, a.Text) {
			return f, true
		}
		f.Message = fmt.Sprintf("the answer does not contain %q", a.Text)
		f.Diff = "- contains " + strconv.Quote(a.Text) + "\n" + prefixLines("+ ", answer)
	case schema.AnswerMatches:
		if a.Regex.MatchString(answer) {
			return f, true
		}
		f.Message = fmt.Sprintf("the answer does not match %s", a.Regex)
		f.Diff = "- matches " + a.Regex.String() + "\n" + prefixLines("+ ", answer)
	case schema.AnswerEquals:
		if strings.TrimSpace(answer) == strings.TrimSpace(a.Text) {
			return f, true
		}
		f.Message = "the answer differs from the expected one"
		f.Diff = prefixLines("- ", strings.TrimSpace(a.Text)) + "\n" + prefixLines("+ ", strings.TrimSpace(answer))
	case schema.AnswerJSON:
		probs := schema.ValidateJSON(a.Type, []byte(answer))
		if len(probs) == 0 {
			return f, true
		}
		var msgs []string
		for _, p := range probs {
			msgs = append(msgs, cmp.Or(p.Pointer, "the answer")+" "+p.Message)
		}
		f.Message = fmt.Sprintf("the answer is not JSON of type %s: %s", a.Type, strings.Join(msgs, "; "))
		f.Diff = "- JSON of type " + a.Type.String() + "\n" + prefixLines("+ ", answer)
	}
	return f, false
}

// prefixLines puts prefix before every line of s.
func prefixLines(prefix, s string) string { return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) }

// HasFormat reports whether s is a valid value of a format of
// [schema.ValueFormats].
func HasFormat(format, s string) bool {
	switch format {
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "time":
		return slices.ContainsFunc([]string{"15:04:05Z07:00", "15:04:05.999999999Z07:00", "15:04:05", "15:04"}, func(layout string) bool {
			_, err := time.Parse(layout, s)
			return err == nil
		})
	case "email":
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address == s && a.Name == ""
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != ""
	case "uuid":
		return uuidRE.MatchString(s)
	case "ipv4":
		ip := net.ParseIP(s)
		return ip != nil && ip.To4() != nil && !strings.Contains(s, ":")
	case "ipv6":
		ip := net.ParseIP(s)
		return ip != nil && strings.Contains(s, ":")
	case "hostname":
		return hostnameRE.MatchString(s) && len(s) <= 253
	}
	return false
}

var (
	uuidRE     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	hostnameRE = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)
)
