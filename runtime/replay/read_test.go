package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRecordingBOM: a recording saved with a byte order mark reads as
// the same recording; a file that is not JSON still says so.
func TestReadRecordingBOM(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hello.replay.json")
	body := `{"version": 1, "interactions": [{"request": {"method": "POST", "path": "/v1/chat/completions"}, "error": "refused"}]}`
	if err := os.WriteFile(path, []byte("\uFEFF"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecording(path, 0)
	if err != nil {
		t.Fatalf("a recording with a byte order mark: %v", err)
	}
	if rec.Version != RecordingVersion || len(rec.Interactions) != 1 || rec.Interactions[0].Error != "refused" {
		t.Errorf("read %+v", rec)
	}
	if err := os.WriteFile(path, []byte("\uFEFF\uFEFF"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecording(path, 0); err == nil || !strings.Contains(err.Error(), "is not a recording") {
		t.Errorf("two byte order marks: %v, want an error saying it is not a recording", err)
	}
}
