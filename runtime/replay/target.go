// Where a recording may be written: never over a file the session reads,
// nor over a file that is not a recording unless asked to.

package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Input is a file a command reads, which a recording never replaces: its
// path and what it is to the command, for messages ("the agent file").
type Input struct{ Path, What string }

// RecordTarget returns the file a recording for path is written to (the
// target of a symbolic link, so that the link stays), or why it cannot be
// written there: it is one of inputs (the same file, whatever its name,
// even with force), it is a directory or not a regular file, it is a file
// that is neither empty nor a recording (unless force), or it cannot be
// written. Nothing is changed.
func RecordTarget(name string, force bool, inputs []Input) (string, error) {
	path := name
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return "", fmt.Errorf("%s is a directory; give a file name", name)
	case err == nil && !info.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file; give a file name", name)
	case err == nil:
		if in, ok := sameInput(info, inputs); ok {
			what := in.What
			if filepath.Clean(in.Path) != filepath.Clean(name) {
				what += " " + in.Path + " under another name"
			}
			return "", fmt.Errorf("%s is %s, which this command reads: --record never replaces an input, even with --force; give another file name, such as %s", name, what, recordingName(in.Path))
		}
		if _, rerr := ReadRecording(path, 0); rerr != nil && info.Size() > 0 && !force {
			return "", fmt.Errorf("%s exists and is not a recording; give another file name, or add --force to replace it", name)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return "", fmt.Errorf("cannot write %s: %w", name, err)
		}
		return path, f.Close()
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("cannot create %s: %w", name, err)
	}
	f.Close()
	return path, os.Remove(path)
}

// sameInput returns the input that is the file of info (compared as files,
// by os.SameFile, not by name).
func sameInput(info os.FileInfo, inputs []Input) (Input, bool) {
	for _, in := range inputs {
		if other, err := os.Stat(in.Path); err == nil && os.SameFile(info, other) {
			return in, true
		}
	}
	return Input{}, false
}

// recordingName suggests a name for a recording of a session of the file
// at path: hello.gram gives hello.replay.json.
func recordingName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base)) + ".replay.json"
}
