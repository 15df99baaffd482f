// Files of tests: the one rule for their names.

package schema

import (
	"path/filepath"
	"strings"
)

// TestSuffix ends the name of a file of tests, NAME_test.gram, kept beside
// the agent file NAME.gram it tests.
const TestSuffix = "_test.gram"

// IsTestFile reports whether the file at path is a file of tests: its name
// ends with [TestSuffix].
func IsTestFile(path string) bool { return strings.HasSuffix(path, TestSuffix) }

// SubjectPath returns the agent file a file of tests is named after
// (greeter_test.gram gives greeter.gram), or "" when path is not a file of
// tests or its name is the suffix alone.
func SubjectPath(path string) string {
	if !IsTestFile(path) || len(filepath.Base(path)) == len(TestSuffix) {
		return ""
	}
	return strings.TrimSuffix(path, TestSuffix) + ".gram"
}
