//go:build race

package ide

// The race detector's build drops what sync.Pool holds at random, so what
// a request allocates varies from run to run there.
func init() { raceBuild = true }
