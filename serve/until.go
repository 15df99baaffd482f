package serve

import (
	"context"
	"net"
)

// ServeUntil serves ln (see [Server.Serve]) until ctx is done, then calls
// stopping and drains the server, and closes it (see [Server.Close]),
// logging a failure to flush the traces.
func (s *Server) ServeUntil(ctx context.Context, ln net.Listener, stopping func()) error {
	// The server drains once stopping has been called.
	drain, startDrain := context.WithCancel(context.Background())
	defer startDrain()
	go func() {
		select {
		case <-ctx.Done():
			stopping()
			startDrain()
		case <-drain.Done():
		}
	}()
	if err := s.Serve(drain, ln); err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		s.log.Warn("flushing the traces", "error", err)
	}
	return nil
}
