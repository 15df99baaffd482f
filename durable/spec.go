// The spec of a stored run, for a process that builds the run itself
// before it resumes it (to show or check what it waits for).

package durable

import (
	"context"
	"encoding/json"
	"fmt"
)

// SpecOf returns the [Spec] the run id was started with; the error wraps
// [ErrNotFound] when the store holds no such run.
func (s *Store) SpecOf(ctx context.Context, id string) (Spec, error) {
	ws, err := s.status(ctx, id)
	if err != nil {
		return Spec{}, err
	}
	var spec Spec
	if err := json.Unmarshal([]byte(listed(ws.Input)), &spec); err != nil {
		return Spec{}, fmt.Errorf("durable: the spec of the run %s cannot be read: %w", id, err)
	}
	return spec, nil
}
