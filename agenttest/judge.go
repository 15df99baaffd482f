// Rubrics: a judge agent reads the turn's conversation and the criterion,
// and answers with a score from 0 to 1.

package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// JudgePrompt returns the message a judge agent receives: the criterion,
// the conversation to judge, and the form of the reply.
func JudgePrompt(criterion string, conv runtime.Conversation) string {
	var b strings.Builder
	b.WriteString("Judge how well the assistant's part of the conversation below meets this criterion:\n\n")
	b.WriteString(criterion)
	b.WriteString("\n\nConversation:\n")
	for _, m := range conv {
		switch m.Role {
		case runtime.RoleUser:
			fmt.Fprintf(&b, "User: %s\n", m.Content)
		case runtime.RoleAssistant:
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "Assistant calls %s with %s\n", c.Name, strings.TrimSpace(c.Arguments))
			}
			if m.Content != "" {
				fmt.Fprintf(&b, "Assistant: %s\n", m.Content)
			}
		case runtime.RoleTool:
			fmt.Fprintf(&b, "Tool %s returns: %s\n", m.Name, m.Content)
		}
	}
	b.WriteString("\nReply with only a JSON object: {\"score\": S, \"reason\": \"...\"}, where S is a number from 0 (does not meet the criterion at all) to 1 (meets it fully).")
	return b.String()
}

// scoreRE finds a bare score in a reply that is not JSON.
var scoreRE = regexp.MustCompile(`(?i)score\D{0,10}?(0(?:\.\d+)?|1(?:\.0+)?)\b`)

// ParseScore reads a judge's reply: a JSON object with a number "score"
// (and an optional "reason"), possibly inside other text or a code fence,
// or "score: 0.8" in words. The score must be from 0 to 1.
func ParseScore(reply string) (float64, string, error) {
	if i, j := strings.IndexByte(reply, '{'), strings.LastIndexByte(reply, '}'); i >= 0 && j > i {
		var v struct {
			Score  *float64 `json:"score"`
			Reason string   `json:"reason"`
		}
		if err := json.Unmarshal([]byte(reply[i:j+1]), &v); err == nil && v.Score != nil {
			if *v.Score < 0 || *v.Score > 1 {
				return 0, "", fmt.Errorf("the judge's score %g is not from 0 to 1", *v.Score)
			}
			return *v.Score, v.Reason, nil
		}
	}
	if m := scoreRE.FindStringSubmatch(reply); m != nil {
		f, _ := strconv.ParseFloat(m[1], 64)
		return f, "", nil
	}
	return 0, "", fmt.Errorf("the judge's reply has no score: %q", clip.Text(reply, 200))
}

// judge asks the rubric's judge to score the conversation so far; it
// returns the score and a failure when the score is under the threshold or
// the judge could not score. Its model calls are counted by mt.
func (r *Runner) judge(ctx context.Context, model func(*schema.Agent) (runtime.Model, error), mt *meter, rb *schema.Rubric, conv runtime.Conversation, turn int) (float64, *Failure) {
	fail := func(msg string) *Failure {
		return &Failure{Turn: turn, Kind: "rubric", Message: fmt.Sprintf("rubric %q: %s", rb.Criterion, msg)}
	}
	if rb.Judge == nil {
		return 0, fail(fmt.Sprintf("the judge %s is not defined", rb.JudgeName))
	}
	m, err := model(rb.Judge)
	if err != nil {
		return 0, fail("the judge cannot run: " + err.Error())
	}
	opts := append(append([]runtime.Option(nil), r.Options...), runtime.WithModel(m), runtime.WithUsage(mt.add))
	resp, err := runtime.Run(ctx, rb.Judge, r.Library, nil, JudgePrompt(rb.Criterion, conv), opts...)
	if err != nil {
		return 0, fail("the judge failed: " + err.Error())
	}
	score, reason, err := ParseScore(resp.Content)
	if err != nil {
		return 0, fail(err.Error())
	}
	if score+1e-9 < rb.Threshold {
		f := fail(fmt.Sprintf("judge %s scored %g, under the threshold %g", rb.JudgeName, score, rb.Threshold))
		if reason != "" {
			f.Diff = fmt.Sprintf("- score ≥ %g\n+ score %g: %s", rb.Threshold, score, reason)
		}
		return score, f
	}
	return score, nil
}
