package inputfile

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The remedies [Hint] gives: GiveGram for a gram file that cannot be
// read, GiveFile for another file (a recording, a history, a schema).
const (
	GiveGram = "give a .gram file"
	GiveFile = "give a regular file"
)

// ReadHinted reads the file at path as [Read] does; its error says what
// to do, as [Hint] words it with give.
func ReadHinted(path string, limit int64, give string) ([]byte, error) {
	b, err := Read(path, limit)
	return b, Hint(err, give)
}

// Hint adds to an [*Error] what to do: give a larger --max-file-size for a
// file too large, otherwise what give says (and, for a gram file, give
// being [GiveGram], that is not a directory, - to read standard input).
// Any other error is returned as it is.
func Hint(err error, give string) error {
	var ie *Error
	switch {
	case !errors.As(err, &ie):
		return err
	case ie.TooLarge():
		return fmt.Errorf("%w; give a larger --max-file-size to read it", err)
	case give == GiveGram && ie.Kind != "a directory":
		return fmt.Errorf("%w; %s, or - to read standard input", err, give)
	}
	return fmt.Errorf("%w; %s", err, give)
}

// ParseSize reads a size limit: a number of bytes, optionally with a unit
// (KB, MB, GB, TB and KiB, MiB, GiB, TiB, or K, M, G, T for the binary
// ones; B for bytes), more than 0 and at most [math.MaxInt64] bytes.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange) || n <= 0:
		return 0, errors.New("want a positive size such as 1000000, 64MB or 1GiB")
	case err != nil || n > math.MaxInt64/mult:
		return 0, fmt.Errorf("want a size of at most %d bytes (8 EiB)", int64(math.MaxInt64))
	}
	return n * mult, nil
}
