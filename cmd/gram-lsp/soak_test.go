package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
)

// BenchmarkSoak measures the memory of a long editing session as an editor
// sees it: the gram-lsp binary over standard input and output, an agent file
// opened, then one-character edits (a character typed into, or deleted from,
// the description of a tool picked at random, as a person typing across the
// file), each waited for until its diagnostics are published. It reports the
// server's resident set (VmRSS) after opening, after the first 100 edits and
// at the end, each read while typing and after a pause (see soak.rss); the
// paused figure at the end must stay at most 1.2 times the one after 100
// edits: memory that grows with the number of edits is an earlier version
// kept alive.
//
// SOAK_LINES (default 500) and SOAK_EDITS (default 2000) set the size of
// the file and the number of edits. Run it with
//
//	go test ./cmd/gram-lsp -run '^$' -bench '^BenchmarkSoak$' -benchtime 1x
func BenchmarkSoak(b *testing.B) {
	if b.N > 1 {
		b.Skip("runs once: use -benchtime 1x")
	}
	lines, edits := envInt(b, "SOAK_LINES", 500), envInt(b, "SOAK_EDITS", 2000)
	fmt.Printf("load average at start: %s\n", loadavg.String())
	s := startSoak(b)
	defer s.stop()
	text := gramgen.AgentFile(lines)
	s.open(text)
	open := s.rss(true)
	r := rand.New(rand.NewPCG(1, uint64(lines)))
	var typing100, paused100 uint64
	var elapsed time.Duration
	for i := 1; i <= edits; i++ {
		start := time.Now()
		text = s.typeAt(r, text, i)
		elapsed += time.Since(start)
		if i == 100 {
			typing100, paused100 = s.rss(false), s.rss(true)
		}
	}
	typingEnd, pausedEnd := s.rss(false), s.rss(true)
	fmt.Printf("soak %d lines (%d KB), %d edits, %.2f ms an edit: RSS after opening %.1f MB; while typing %.1f MB after 100 edits, %.1f MB at the end (%.2f×); after a pause %.1f MB after 100 edits, %.1f MB at the end (%.2f×); load average at end: %s\n",
		lines, len(text)>>10, edits, float64(elapsed.Microseconds())/1000/float64(edits), mb(open),
		mb(typing100), mb(typingEnd), float64(typingEnd)/float64(typing100),
		mb(paused100), mb(pausedEnd), float64(pausedEnd)/float64(paused100), loadavg.String())
	if os.Getenv("SOAK_GCTRACE") != "" {
		lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n")
		fmt.Println(strings.Join(lines[max(0, len(lines)-5):], "\n"))
	}
	b.ReportMetric(mb(open), "open-MB")
	b.ReportMetric(mb(typing100), "typing-100-MB")
	b.ReportMetric(mb(typingEnd), "typing-end-MB")
	b.ReportMetric(mb(paused100), "paused-100-MB")
	b.ReportMetric(mb(pausedEnd), "paused-end-MB")
	b.ReportMetric(0, "ns/op")
	if edits >= 200 && float64(pausedEnd) > 1.2*float64(paused100) {
		b.Errorf("RSS grew from %.1f MB after 100 edits to %.1f MB after %d: an earlier version stays reachable", mb(paused100), mb(pausedEnd), edits)
	}
}

// soak is a gram-lsp process and a client connected to its standard input
// and output.
type soak struct {
	tb     testing.TB
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	stderr bytes.Buffer

	mu        sync.Mutex
	published map[int32]bool
	wake      chan struct{}
	version   int32
	// at is the byte offset of the last character typed.
	at int
}

const soakURI = "file:///soak/agents.gram"

// startSoak builds gram-lsp, starts it and initializes a session.
func startSoak(tb testing.TB) *soak {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "gram-lsp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		tb.Fatalf("build: %v\n%s", err, out)
	}
	s := &soak{tb: tb, published: map[int32]bool{}, wake: make(chan struct{}, 1)}
	s.cmd = exec.Command(bin, "--stdio")
	if os.Getenv("SOAK_GCTRACE") != "" {
		s.cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	}
	s.cmd.Stderr = &s.stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	s.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p struct {
				Version *int32 `json:"version"`
			}
			if json.Unmarshal(req.Params(), &p) == nil && p.Version != nil {
				s.mu.Lock()
				s.published[*p.Version] = true
				s.mu.Unlock()
				select {
				case s.wake <- struct{}{}:
				default:
				}
			}
		}
		return reply(ctx, nil, nil)
	})
	var res map[string]any
	if _, err := s.conn.Call(context.Background(), "initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}, "rootUri": nil}, &res); err != nil {
		tb.Fatalf("initialize: %v", err)
	}
	s.notify("initialized", map[string]any{})
	return s
}

func (s *soak) notify(method string, params any) {
	if err := s.conn.Notify(context.Background(), method, params); err != nil {
		s.tb.Fatalf("%s: %v (stderr %s)", method, err, s.stderr.String())
	}
}

// open opens text as version 1 and waits for its diagnostics.
func (s *soak) open(text string) {
	s.version = 1
	s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": soakURI, "languageId": "gram", "version": 1, "text": text}})
	s.wait(1)
}

// wait waits until the diagnostics of version v are published.
func (s *soak) wait(v int32) {
	deadline := time.After(2 * time.Minute)
	for {
		s.mu.Lock()
		ok := s.published[v]
		delete(s.published, v)
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.wake:
		case <-deadline:
			s.tb.Fatalf("no diagnostics for version %d (stderr %s)", v, s.stderr.String())
		}
	}
}

// toolDescription finds the descriptions of tools in an agent file.
var toolDescription = regexp.MustCompile(`:Tool \{description: "`)

// typeAt makes edit number i of text: on odd edits a character typed into
// the description of a tool picked with r, on even ones that character
// deleted again. It waits for the edit's diagnostics and returns the new
// text.
func (s *soak) typeAt(r *rand.Rand, text string, i int) string {
	// The position is kept between an insertion and its deletion.
	if i%2 == 1 {
		all := toolDescription.FindAllStringIndex(text, -1)
		s.at = all[r.IntN(len(all))][1] + r.IntN(8)
	}
	line := strings.Count(text[:s.at], "\n")
	char := s.at - (strings.LastIndexByte(text[:s.at], '\n') + 1)
	rg := protocol.Range{Start: protocol.Position{Line: uint32(line), Character: uint32(char)}}
	rg.End = rg.Start
	ins := "x"
	if i%2 == 0 {
		rg.End.Character++
		ins = ""
		text = text[:s.at] + text[s.at+1:]
	} else {
		text = text[:s.at] + "x" + text[s.at:]
	}
	s.version++
	s.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": soakURI, "version": s.version},
		"contentChanges": []map[string]any{{"range": rg, "text": ins}},
	})
	s.wait(s.version)
	return text
}

// rss returns the server's resident set size in bytes: while typing (0.1 s
// after the last diagnostics), or after a pause of two seconds, by when the
// server has given back what it no longer uses (see lsp.TuneGC).
func (s *soak) rss(paused bool) uint64 {
	wait := 100 * time.Millisecond
	if paused {
		wait = 2 * time.Second
	}
	time.Sleep(wait)
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		s.tb.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				s.tb.Fatal(err)
			}
			return kb << 10
		}
	}
	s.tb.Fatal("no VmRSS")
	return 0
}

// stop shuts the server down.
func (s *soak) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.conn.Call(ctx, "shutdown", nil, nil)
	s.conn.Notify(ctx, "exit", nil)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
	}
}

func mb(n uint64) float64 { return float64(n) / (1 << 20) }

// envInt returns the integer in the environment variable name, or def.
func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
