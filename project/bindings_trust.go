package project

// Whether a bindings file found by [FindBindings] may be used. A bindings
// file starts programs (its Program and MCPServer commands), so one found
// in a parent directory is used only when nobody but the user (or root)
// could have written it, as git refuses a repository another user owns
// (safe.directory) and ssh a configuration file others can write to: the
// file must be owned by the user or root and not writable by other users,
// nor by a group other than the user's own private group, and its
// directory (which lets whoever can write to it replace the file) must
// meet the same rules or have the sticky bit. A path that leads through
// links is followed one link at a time, and each link and the directory
// holding it must meet the rules too; the file is then read only if it is
// the file checked. An mcp.json file a bindings file names (its servers
// start programs too) is held to the same rules when the bindings are
// used to run something. TrustEnv lists the files used all the same. The
// rules are a file's, whatever it holds: package internal/filetrust
// applies them; this file is what they mean for bindings.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/gramlang/gram/internal/filetrust"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/shellquote"
)

// TrustEnv is the environment variable that lists the bindings files used
// even though another user owns them or could change them: their paths,
// or their directories', separated by the list separator of the system
// (":" on Unix); "*" trusts every bindings file.
const TrustEnv = "GRAM_TRUSTED_BINDINGS"

// UntrustedError is the refusal of a bindings file, or of an mcp.json file
// a bindings file names, that another user owns or could have written.
type UntrustedError struct {
	// Path is the file, and Reason why it is refused: "is owned by
	// another user (uid 1001)", ...
	Path, Reason string
	// Fix is what the user could change to make the file safe, or "".
	Fix string
	// NamedBy is the bindings file that names the file, an mcp.json
	// file; "" when the file is the bindings file.
	NamedBy string
}

// Error names the file, why it is refused and how to trust it, for a
// command: with the --bindings flag, which can name it or turn bindings
// off.
func (e *UntrustedError) Error() string { return e.text(true) }

// EditorText is [UntrustedError.Error] for an editor, which has no flags:
// the environment variable is set where the editor starts the language
// server.
func (e *UntrustedError) EditorText() string { return e.text(false) }

// text is the refusal, with the command line's flags or not.
func (e *UntrustedError) text(flags bool) string {
	fix := ""
	if e.Fix != "" {
		fix = e.Fix + "; or, "
	}
	trust := fmt.Sprintf("if you trust it, list it in the environment variable %s (%s=%s)", TrustEnv, TrustEnv, shellquote.Quote(e.Path))
	if !flags {
		trust += " of the editor"
	}
	if e.NamedBy != "" {
		s := fmt.Sprintf("%s (named by %s) %s: an mcp.json file starts the programs of its servers, so one that another user could have written is not used; %s%s",
			e.Path, e.NamedBy, e.Reason, fix, trust)
		if flags {
			s += "; --bindings none uses no bindings file"
		}
		return s
	}
	s := fmt.Sprintf("%s %s: a bindings file starts programs, so one that another user could have written is not used; %s%s", e.Path, e.Reason, fix, trust)
	if flags {
		s += fmt.Sprintf(" or name it with --bindings %s; --bindings none uses none", shellquote.Quote(e.Path))
	}
	return s
}

// readTrusted reads the file at path, within limit, when TrustEnv lists
// it or nobody but the user (or root) could have written it (see
// [filetrust.Check]), only if the file read is the file checked; otherwise
// the error is an [*UntrustedError], whose NamedBy is namedBy.
func readTrusted(path, namedBy string, limit int64) ([]byte, error) {
	checked, err := trusted(path, namedBy)
	if err != nil {
		return nil, err
	}
	return inputfile.ReadChecked(path, checked, limit)
}

// trusted checks the file at path unless TrustEnv lists it, and returns
// what it checked (nil when listed); a refusal is an [*UntrustedError],
// whose NamedBy is namedBy.
func trusted(path, namedBy string) (fs.FileInfo, error) {
	if filetrust.Listed(path, os.Getenv(TrustEnv)) {
		return nil, nil
	}
	info, err := filetrust.Check(path)
	if fe := (*filetrust.Error)(nil); errors.As(err, &fe) {
		return nil, &UntrustedError{Path: fe.Path, Reason: fe.Reason, Fix: fe.Fix, NamedBy: namedBy}
	}
	return info, err
}
