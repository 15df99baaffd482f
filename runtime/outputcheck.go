// Typed results: the final answer of an agent with a result type is read
// as JSON and validated against the type; a mismatch is told to the model,
// which answers again, a bounded number of times.

package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/schema"
)

// OutputError is a run whose final answer did not match the agent's
// result type, even after the model was told what was wrong.
type OutputError struct {
	// Agent is the agent's name.
	Agent string
	// Returns is the result type, as written ("Invoice").
	Returns string
	// Attempts is the number of answers given.
	Attempts int
	// Problems are what was wrong with the last answer; Pointer "" is the
	// answer itself.
	Problems []schema.Problem
}

// Error returns e.g. `agent "billing": after 3 answers, the answer does not
// match the result type Invoice: /total: must be number, not string`.
func (e *OutputError) Error() string {
	return fmt.Sprintf("agent %q: %s", e.Agent, e.mismatch())
}

// UserMessage implements [UserError].
func (e *OutputError) UserMessage() string {
	return "The agent could not give its answer in the required form: " + e.mismatch() + "."
}

// mismatch says what was wrong, without the agent's name.
func (e *OutputError) mismatch() string {
	return fmt.Sprintf("after %d %s, the answer does not match the result type %s: %s",
		e.Attempts, gramtext.Plural(e.Attempts, "answer", "answers"), e.Returns, schema.ProblemsText(e.Problems))
}

// outputFeedback is the user message that tells the model its answer does
// not match: the problems, with where they are and what was expected.
func outputFeedback(problems []schema.Problem) string {
	return "Your answer does not match the required JSON Schema: " + schema.ProblemsText(problems) +
		". Answer again with JSON only."
}

// check reads a final answer: its JSON value (the "result" member of a
// wrapped answer), or the problems that make it unfit.
func (s *outputSpec) check(text string) (json.RawMessage, []schema.Problem) {
	raw, err := answerJSON(text)
	if err != nil {
		return nil, []schema.Problem{{Message: "is not JSON (" + err.Error() + ")"}}
	}
	prefix := ""
	if s.wrapped {
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil || members == nil {
			return nil, []schema.Problem{{Message: "must be an object with the property \"result\""}}
		}
		var problems []schema.Problem
		for _, k := range slices.Sorted(maps.Keys(members)) {
			if k != resultProperty {
				problems = append(problems, schema.Problem{Pointer: "/" + pointerEscape(k), Message: "is not a property of the answer"})
			}
		}
		r, ok := members[resultProperty]
		if !ok {
			problems = append(problems, schema.Problem{Message: "missing property \"result\""})
		}
		if len(problems) > 0 {
			return nil, problems
		}
		raw, prefix = r, "/"+resultProperty
	}
	v, err := decodeNumbers(raw)
	if err != nil {
		return nil, []schema.Problem{{Message: "is not JSON (" + err.Error() + ")"}}
	}
	if err := schema.ValidateResult(s.tool, v); err != nil {
		var re *schema.ResultError
		if !errors.As(err, &re) {
			return nil, []schema.Problem{{Pointer: prefix, Message: err.Error()}}
		}
		problems := make([]schema.Problem, len(re.Problems))
		for i, p := range re.Problems {
			problems[i] = schema.Problem{Pointer: prefix + p.Pointer, Message: p.Message}
		}
		return nil, problems
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, []schema.Problem{{Message: "is not JSON (" + err.Error() + ")"}}
	}
	return b.Bytes(), nil
}

// pointerEscape escapes a member name as a JSON pointer token.
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// answerJSON returns the JSON value of an answer: its text, without
// surrounding space or a Markdown code fence (```json ... ```), which must
// be one JSON value.
func answerJSON(text string) (json.RawMessage, error) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && len(s) >= 6 {
		s = s[3 : len(s)-3]
		if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.ContainsAny(s[:i], "{[\"") {
			s = s[i+1:] // the fence's language tag
		}
		s = strings.TrimSpace(s)
	}
	if s == "" {
		return nil, errors.New("the answer is empty")
	}
	if _, err := decodeNumbers([]byte(s)); err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}

// decodeNumbers decodes one JSON value, numbers as json.Number, and
// refuses anything after it.
func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonProblem(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("there is text after the JSON value")
	}
	return v, nil
}

// jsonProblem says what is wrong with a JSON text without repeating it.
func jsonProblem(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return errors.New("invalid JSON at byte " + strconv.FormatInt(se.Offset, 10))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the JSON value is cut short")
	}
	return errors.New("invalid JSON")
}

// checkOutput validates a final answer of an agent with a result type.
// It returns again when the model is to answer again, the feedback
// appended to the conversation, and an [*OutputError] when the retries
// are spent; on success the answer's value is the response's Output.
func (r *runner) checkOutput(msg Message) (again bool, err error) {
	if r.output == nil {
		return false, nil
	}
	out, problems := r.output.check(msg.Content)
	if problems == nil {
		r.resp.Output = out
		return false, nil
	}
	r.outputAttempts++
	retries := DefaultOutputRetries
	if r.cfg.outputRetries != nil {
		retries = *r.cfg.outputRetries
	}
	r.log.Warn("answer does not match the result type", "attempt", r.outputAttempts, "problems", schema.ProblemsText(problems))
	if r.outputAttempts > retries {
		return false, &OutputError{Agent: r.agent.Name, Returns: r.output.tool.Returns.String(),
			Attempts: r.outputAttempts, Problems: problems}
	}
	r.resp.Conversation = append(r.resp.Conversation, Message{Role: RoleUser, Content: outputFeedback(problems)})
	return true, nil
}

// failOutput ends the turn whose answer did not match the result type:
// the last answer is the content, the status [StatusInvalidOutput].
func (r *runner) failOutput(content string, err error) (*Response, error) {
	r.resp.Content = content
	r.resp.Status = StatusInvalidOutput
	r.resp.Error = UserMessage(err)
	r.log.Error("run failed", "error", err)
	return r.resp, err
}
