package diag

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jsonText has an astral character (two UTF-16 units) before the node.
//
//	offsets: "😀" 0..3, " " 4, "(a)" 5..7, "\n" 8; line 2 starts at 9 with
//	"(b)" 9..11, "-->" 12..14, "(c)" 15..17, "\n" 18.
const jsonText = "😀 (a)\n(b)-->(c)\n"

func jsonReports() []FileReport {
	a := NewFile("a.gram", []byte(jsonText))
	b := NewFile("dir/b.gram", []byte("()\n"))
	return []FileReport{
		{File: a, Diagnostics: List{
			{
				Severity: Error,
				Code:     "syntax-error",
				Message:  "unexpected <node>",
				Detail:   "remove it & retry",
				Span:     Span{5, 8},
				Related:  []Related{{Span: Span{9, 12}, Message: "see (b)"}},
				Fixes: []Fix{
					{Title: "Delete", Edits: []Edit{{Span: Span{4, 8}, NewText: ""}}},
					{Title: "Nothing"},
				},
			},
			Warningf("odd-arrow", Span{12, 15}, "arrow %q", "-->"),
		}},
		{File: b},
	}
}

func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, "gramc/0.1.0", jsonReports()); err != nil {
		t.Fatal(err)
	}
	want := `{
  "schema_version": 1,
  "tool": "gramc/0.1.0",
  "files": [
    {
      "path": "a.gram",
      "diagnostics": [
        {
          "severity": "error",
          "code": "syntax-error",
          "message": "unexpected <node>",
          "range": {
            "start": {
              "line": 0,
              "character": 3
            },
            "end": {
              "line": 0,
              "character": 6
            }
          },
          "detail": "remove it & retry",
          "related": [
            {
              "message": "see (b)",
              "path": "a.gram",
              "range": {
                "start": {
                  "line": 1,
                  "character": 0
                },
                "end": {
                  "line": 1,
                  "character": 3
                }
              }
            }
          ],
          "fixes": [
            {
              "title": "Delete",
              "edits": [
                {
                  "range": {
                    "start": {
                      "line": 0,
                      "character": 2
                    },
                    "end": {
                      "line": 0,
                      "character": 6
                    }
                  },
                  "newText": ""
                }
              ]
            },
            {
              "title": "Nothing",
              "edits": []
            }
          ]
        },
        {
          "severity": "warning",
          "code": "odd-arrow",
          "message": "arrow \"-->\"",
          "range": {
            "start": {
              "line": 1,
              "character": 3
            },
            "end": {
              "line": 1,
              "character": 6
            }
          }
        }
      ]
    },
    {
      "path": "dir/b.gram",
      "diagnostics": []
    }
  ]
}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteJSON mismatch (-want +got):\n%s", diff)
	}

	// The output must decode back into the exported types unchanged.
	var got JSONReport
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(NewJSONReport("gramc/0.1.0", jsonReports()), got); diff != "" {
		t.Errorf("decoded report mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteJSONNoFiles(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, "gramc/0.1.0", nil); err != nil {
		t.Fatal(err)
	}
	want := `{
  "schema_version": 1,
  "tool": "gramc/0.1.0",
  "files": []
}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteJSON mismatch (-want +got):\n%s", diff)
	}
}

func TestToJSON(t *testing.T) {
	f := NewFile("a.gram", []byte("a😀b\r\nc"))
	d := Diagnostic{Severity: Hint, Code: "h", Message: "m", Span: Span{5, 99}}
	want := JSONDiagnostic{
		Severity: "hint",
		Code:     "h",
		Message:  "m",
		Range: JSONRange{
			Start: JSONPosition{Line: 0, Character: 3},
			End:   JSONPosition{Line: 1, Character: 1},
		},
	}
	if diff := cmp.Diff(want, ToJSON(f, d)); diff != "" {
		t.Errorf("ToJSON mismatch (-want +got):\n%s", diff)
	}
	// The \r of a CRLF pair is the end of its line.
	if got, want := ToJSONRange(f, Span{6, 6}), (JSONRange{JSONPosition{0, 4}, JSONPosition{0, 4}}); got != want {
		t.Errorf("ToJSONRange = %v, want %v", got, want)
	}
}

// TestToJSONRelatedElsewhere checks that a related location in another file
// is given with that file's path, and its range counted in that file's text
// (an astral character before it there, none in the diagnostic's file).
func TestToJSONRelatedElsewhere(t *testing.T) {
	a := NewFile("a.gram", []byte("(x)\n"))
	b := NewFile("dir/b.gram", []byte("\n😀 (x)\n"))
	d := Errorf("duplicate-definition", Span{1, 2}, "x is declared twice")
	d.Related = []Related{{File: b, Span: Span{7, 8}, Message: "the other x"}, {File: a, Span: Span{0, 3}, Message: "this one"}}
	want := []JSONRelated{
		{Message: "the other x", Path: "dir/b.gram", Range: JSONRange{Start: JSONPosition{1, 4}, End: JSONPosition{1, 5}}},
		{Message: "this one", Path: "a.gram", Range: JSONRange{Start: JSONPosition{0, 0}, End: JSONPosition{0, 3}}},
	}
	if diff := cmp.Diff(want, ToJSON(a, d).Related); diff != "" {
		t.Errorf("related mismatch (-want +got):\n%s", diff)
	}
}
