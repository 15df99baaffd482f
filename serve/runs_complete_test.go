package serve

import (
	"strings"
	"testing"
)

// TestRunsConfigComplete: --store-env gives the store's URL, refused with
// --store or when the variable is empty; a store gets the executor id of
// the address unless one is given.
func TestRunsConfigComplete(t *testing.T) {
	t.Setenv("GRAM_TEST_STORE", " sqlite:runs.db ")
	t.Setenv("GRAM_TEST_EMPTY", "")
	r := RunsConfig{}
	if err := r.Complete("GRAM_TEST_STORE", "127.0.0.1:9"); err != nil || r.Store != "sqlite:runs.db" || r.ExecutorID != DefaultExecutorID("127.0.0.1:9") {
		t.Errorf("Complete = %v, %+v", err, r)
	}
	r = RunsConfig{Store: "x.db", ExecutorID: "mine"}
	if err := r.Complete("", "127.0.0.1:9"); err != nil || r.ExecutorID != "mine" {
		t.Errorf("Complete with an id = %v, %+v", err, r)
	}
	if err := (&RunsConfig{Store: "x.db"}).Complete("GRAM_TEST_STORE", ""); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("--store and --store-env: %v", err)
	}
	if err := (&RunsConfig{}).Complete("GRAM_TEST_EMPTY", ""); err == nil || !strings.Contains(err.Error(), "not set or empty") {
		t.Errorf("an empty variable: %v", err)
	}
	r = RunsConfig{}
	if err := r.Complete("", "a:1"); err != nil || r.ExecutorID != "" {
		t.Errorf("no store: %v, %+v", err, r)
	}
}
