package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// tripMessage is the user's message of the tutorial's recorded run of the
// trip planner.
const tripMessage = "I'm spending today in Bergen. What should I pack?"

// tutorialModel plays the model of docs/tutorial.md: it answers from the
// conversation's last user message and last message, as a well-behaved
// model would.
func tutorialModel(req *fakeopenai.Request) fakeopenai.Response {
	return tutorialModelWith(`{"city":"Oslo","days":1}`)(req)
}

// tutorialModelWith is tutorialModel calling getForecast with the
// arguments forecastArgs.
func tutorialModelWith(forecastArgs string) fakeopenai.Step {
	return func(req *fakeopenai.Request) fakeopenai.Response { return tutorialAnswer(req, forecastArgs) }
}

// tutorialAnswer is the answer of tutorialModelWith(forecastArgs) to req:
// the trip agents' of step 6 (tripAnswer), else the weather agent's.
func tutorialAnswer(req *fakeopenai.Request, forecastArgs string) fakeopenai.Response {
	msgs := req.Body.Messages
	system, user, last := "", "", msgs[len(msgs)-1]
	for _, m := range msgs {
		switch m.Role {
		case "system":
			system = m.Text()
		case "user":
			user = m.Text()
		}
	}
	call := func(name, args string) fakeopenai.Response {
		return fakeopenai.Calls(fakeopenai.Call{Name: name, Arguments: args})(req)
	}
	text := func(s string) fakeopenai.Response { return fakeopenai.Text(s)(req) }
	forecast := func() fakeopenai.Response { return call("getForecast", forecastArgs) }
	result := last.Text()
	if r, ok := tripAnswer(system, user, last.Role, result, call, text); ok {
		return r
	}
	switch {
	case strings.HasPrefix(result, "Transferred to weather_agent"):
		// Handed the conversation by the trip planner.
		return forecast()
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

// tripAnswer plays the agents of the tutorial's step 6 (trip.gram), told
// apart by their instructions: the trip planner asks the forecaster about
// a trip and hands weather questions to the weather agent; the forecaster
// looks the city up and answers with its first day, a Forecast. It reports
// false for the weather agent.
func tripAnswer(system, user, role, result string, call func(name, args string) fakeopenai.Response, text func(string) fakeopenai.Response) (fakeopenai.Response, bool) {
	switch {
	case strings.HasPrefix(system, "You help the user plan") && role == "user" && strings.Contains(user, "pack"):
		return call("forecaster", `{"city":"Bergen"}`), true
	case strings.HasPrefix(system, "You help the user plan") && role == "user":
		return call("transfer_to_weather_agent", `{}`), true
	case strings.HasPrefix(system, "You help the user plan"):
		return text("Pack for the cold: light snow in Bergen today, with a high of -2 °C. Take a warm coat, gloves and boots."), true
	case strings.HasPrefix(system, "You give today's forecast") && role == "user":
		city := user
		if m := regexp.MustCompile(`"city":"([^"]*)"`).FindStringSubmatch(user); m != nil {
			city = m[1]
		}
		return call("getForecast", fmt.Sprintf(`{"city":%q}`, strings.TrimSpace(city))), true
	case strings.HasPrefix(system, "You give today's forecast"):
		// The first day of the array getForecast returns.
		return text(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(result), "["), "]")), true
	}
	return fakeopenai.Response{}, false
}

// TestTutorial runs docs/tutorial.md as a reader who types it into a
// directory of their own does: the files it shows must be the ones shipped
// in docs/tutorial, and every file shipped there must be shown; its gram
// examples must check as their fences say (TestLanguageDoc's checker); and
// every command it shows is run, in order, in a new directory holding only
// the files the page shows, its output compared with the block shown
// after it. Commands that --record talk to an in-process server playing
// the model (tutorialModel); all others run with no server and no key.
// With -update it first records the shipped recording and cassettes again
// against that server, and writes them into the page.
func TestTutorial(t *testing.T) {
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
		recordTutorial(t, src, live)
	}
	b, err := os.ReadFile("../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)

	// The files shown are the files shipped, and the reader's directory
	// holds them only.
	dir := t.TempDir()
	shown := map[string]bool{}
	for _, ex := range docExamples(doc) {
		name := blockOption(ex, "file")
		if name == "" {
			continue
		}
		shown[name] = true
		got, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Errorf("docs/tutorial.md:%d: the file %s is not in docs/tutorial: %v", ex.line, name, err)
		} else if string(got) != ex.text {
			t.Errorf("docs/tutorial.md:%d: docs/tutorial/%s differs from what the page shows", ex.line, name)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(ex.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if !shown[filepath.ToSlash(rel)] {
			t.Errorf("docs/tutorial/%s is not shown in docs/tutorial.md: a reader in a directory of their own would not have it", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) < 6 {
		t.Errorf("docs/tutorial.md shows %d files; want the agents, the tests, the tool program, the recording and the cassettes", len(shown))
	}
	for _, p := range checkLanguageDoc(t, "docs/tutorial.md", doc, nil) {
		t.Error(p)
	}

	// Every command, in the reader's directory.
	env := func(args []string) { live(slices.Contains(args, "--record")) }
	problems, ran := docRun(t, "docs/tutorial.md", doc, map[string]string{"docs/tutorial": dir}, env)
	for _, p := range problems {
		t.Error(p)
	}
	if ran < 8 {
		t.Errorf("docs/tutorial.md: %d commands ran; want its checks, runs and tests", ran)
	}
}

// recordTutorial records the tutorial's recording and cassettes again in
// src against the server playing the model, then writes each file the page
// shows from src into docs/tutorial.md.
func recordTutorial(t *testing.T, src string, live func(bool)) {
	t.Helper()
	t.Chdir(src)
	live(true)
	for _, args := range [][]string{
		slices.Concat([]string{"run", "weather.gram", "--record", "weather.replay.json", "--force"}, tutorialTools, []string{"-m", "I live in Oslo. Will it snow today?"}),
		slices.Concat([]string{"test", "--record", "--parallel", "1"}, tutorialTools, []string{"weather_test.gram"}),
		slices.Concat([]string{"run", "trip.gram", "--agent", "trip_planner", "--record", "trip.replay.json", "--force"}, tutorialTools, []string{"-m", tripMessage}),
		slices.Concat([]string{"test", "--record", "--parallel", "1"}, tutorialTools, []string{"trip_test.gram"}),
	} {
		var out, errOut bytes.Buffer
		if code := Main(args, nil, &out, &errOut); code != exitOK {
			t.Fatalf("recording: gramc %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
		}
	}
	page := filepath.Join(src, "..", "tutorial.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, ex := range docExamples(doc) {
		name := blockOption(ex, "file")
		if name == "" {
			continue
		}
		text, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		head := "```" + ex.lang + " " + strings.Join(ex.args, " ") + "\n"
		doc = strings.Replace(doc, head+ex.text+"```", head+string(text)+"```", 1)
	}
	if err := os.WriteFile(page, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTutorialTestsAnyModel records the tutorial's tests (its step 5)
// against models that call getForecast in the ways a model may: with days
// or without it (the default is then sent), with the city in another case.
// Each passes: the tests check what the agent must do, not what a model
// may do either way.
func TestTutorialTestsAnyModel(t *testing.T) {
	src, err := filepath.Abs("../../docs/tutorial")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"city":"Oslo","days":1}`, `{"city":"Oslo"}`, `{"city":"oslo","days":2}`} {
		srv := fakeopenai.New(t, repeatStep(tutorialModelWith(args), 100)...)
		t.Setenv("OPENAI_BASE_URL", srv.URL)
		t.Setenv("OPENAI_API_KEY", "sk-tutorial")
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		cmd := slices.Concat([]string{"test", "--record", "--cassettes", "mine"}, tutorialTools, []string{"weather_test.gram"})
		var out, errOut bytes.Buffer
		if code := Main(cmd, nil, &out, &errOut); code != exitOK {
			t.Errorf("getForecast %s: gramc %s: exit %d\n%s%s", args, strings.Join(cmd, " "), code, out.String(), errOut.String())
		}
	}
}
