package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// tutorialTools are the flags that bind the tutorial agent's tools and set
// its injected parameter, as docs/tutorial.md writes them.
var tutorialTools = []string{
	"--inject", "userId=u-42",
	"--tool", "getForecast=sh tools/weather.sh getForecast",
	"--tool", "saveHomeCity=sh tools/weather.sh saveHomeCity",
}

// tutorialModel plays the model of docs/tutorial.md: it answers from the
// conversation's last user message and last message, as a well-behaved
// model would.
func tutorialModel(req *fakeopenai.Request) fakeopenai.Response {
	msgs := req.Body.Messages
	user, last := "", msgs[len(msgs)-1]
	for _, m := range msgs {
		if m.Role == "user" {
			user = m.Text()
		}
	}
	call := func(name, args string) fakeopenai.Response {
		return fakeopenai.Calls(fakeopenai.Call{Name: name, Arguments: args})(req)
	}
	text := func(s string) fakeopenai.Response { return fakeopenai.Text(s)(req) }
	forecast := func() fakeopenai.Response { return call("getForecast", `{"city":"Oslo","days":1}`) }
	result := last.Text()
	switch {
	case last.Role == "user" && strings.HasPrefix(user, "I live in Oslo"):
		return call("saveHomeCity", `{"city":"Oslo"}`)
	case last.Role == "user" && strings.HasPrefix(user, "Will it snow in Oslo"):
		return forecast()
	case last.Role == "user":
		return fakeopenai.Error(400, "the tutorial's model has no answer to "+user)(req)
	case strings.HasPrefix(result, "Saved") && strings.Contains(user, "snow"):
		return forecast()
	case strings.HasPrefix(result, "Saved"):
		return text("Got it: Oslo is your home city now.")
	case strings.Contains(result, "light snow"):
		return text("Yes: light snow in Oslo today, with a high of -2 °C.")
	}
	return fakeopenai.Error(400, "the tutorial's model has no answer after "+result)(req)
}

// TestTutorial runs docs/tutorial.md: the files it shows must be the ones
// shipped in docs/tutorial, its gram examples must check as their fences
// say (TestLanguageDoc's checker), and every command it shows is run in a
// copy of docs/tutorial, in order, its output compared with the block shown
// after it. Commands that --record talk to an in-process server playing the
// model (tutorialModel); all others run with no server and no key. With
// -update it first records the shipped recording and cassettes again
// against that server.
func TestTutorial(t *testing.T) {
	b, err := os.ReadFile("../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	src, err := filepath.Abs("../../docs/tutorial")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(t, repeatStep(tutorialModel, 1000)...)
	live := func(on bool) {
		if on {
			t.Setenv("OPENAI_BASE_URL", srv.URL)
			t.Setenv("OPENAI_API_KEY", "sk-tutorial")
		} else {
			t.Setenv("OPENAI_BASE_URL", "")
			t.Setenv("OPENAI_API_KEY", "")
		}
	}
	if *update {
		t.Chdir(src)
		live(true)
		for _, args := range [][]string{
			slices.Concat([]string{"run", "weather.gram", "--record", "weather.replay.json", "--force"}, tutorialTools, []string{"-m", "I live in Oslo. Will it snow today?"}),
			slices.Concat([]string{"test", "--record", "--parallel", "1"}, tutorialTools, []string{"weather_test.gram"}),
		} {
			var out, errOut bytes.Buffer
			if code := Main(args, nil, &out, &errOut); code != exitOK {
				t.Fatalf("recording: gramc %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
			}
		}
	}

	// The files shown are the files shipped.
	shown := 0
	for _, ex := range docExamples(doc) {
		name := blockOption(ex, "file")
		if name == "" {
			continue
		}
		shown++
		got, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Errorf("docs/tutorial.md:%d: the file %s is not in docs/tutorial: %v", ex.line, name, err)
		} else if string(got) != ex.text {
			t.Errorf("docs/tutorial.md:%d: docs/tutorial/%s differs from what the page shows", ex.line, name)
		}
	}
	if shown < 3 {
		t.Errorf("docs/tutorial.md shows %d files; want the agents, the tests and the tool program", shown)
	}
	for _, p := range checkLanguageDoc(t, "docs/tutorial.md", doc, nil) {
		t.Error(p)
	}

	// Every command, in a copy of the directory.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	env := func(args []string) { live(slices.Contains(args, "--record")) }
	problems, ran := docRun(t, "docs/tutorial.md", doc, map[string]string{"docs/tutorial": dir}, env)
	for _, p := range problems {
		t.Error(p)
	}
	if ran < 8 {
		t.Errorf("docs/tutorial.md: %d commands ran; want its checks, runs and tests", ran)
	}
}
