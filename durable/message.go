// The wait for a decision in a SQLite store: woken in memory by a decision
// made in this process.

package durable

import (
	"context"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// messagePoll is how often a run waiting for decisions in a SQLite store
// looks for one sent by another process (as often as DBOS polls for the
// messages of its waits on SQLite).
const messagePoll = time.Second

// messageReady is whether the next DBOS.recv of a run would not wait: a
// message on the decisions topic not yet consumed, or a step recorded after
// the run's current one (the run is replayed from its checkpoints, and the
// recv has its result). It reads DBOS's system tables (SQLite has no
// schema prefix).
const messageReady = `SELECT EXISTS (SELECT 1 FROM notifications
  WHERE destination_uuid = ?1 AND topic = ?2 AND consumed = false)
  OR EXISTS (SELECT 1 FROM operation_outputs WHERE workflow_uuid = ?1 AND function_id > ?3)`

// awaitMessage waits, in a SQLite store, until the run id has a decision
// (or a cancellation) to receive. DBOS's Recv on SQLite finds a message at
// its next poll, once a second; a decision made in this process wakes the
// run here at once, and Recv then takes the message without waiting. A
// decision sent by another process is found by polling, every messagePoll.
// On PostgreSQL, where DBOS is notified of every message, and whenever the
// store cannot tell, it returns at once and leaves the wait to Recv.
func (s *Store) awaitMessage(ctx context.Context, dctx dbos.Context, id string) error {
	if s.db == nil {
		return nil
	}
	step, err := dbos.GetStepID(dctx)
	if err != nil {
		return nil
	}
	defer s.watch(id)()
	tick := time.NewTicker(messagePoll)
	defer tick.Stop()
	for {
		changed := s.changes(id)
		var ready bool
		if err := s.db.QueryRowContext(ctx, messageReady, id, decisionsTopic, step).Scan(&ready); err != nil || ready {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-changed:
		case <-tick.C:
		}
	}
}
