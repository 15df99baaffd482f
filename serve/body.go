// Request bodies: read within the server's size limit and the time the
// middleware gives a client to send them.

package serve

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// bodyTimeout returns how long a client has to send a request's body,
// the read timeout or the request's timeout if it is shorter, and the flag
// that sets it.
func (s *Server) bodyTimeout() (time.Duration, string) {
	if s.limits.Timeout < s.limits.ReadTimeout {
		return s.limits.Timeout, "--timeout"
	}
	return s.limits.ReadTimeout, "--read-timeout"
}

// readBody reads a request body within the size limit (413 beyond it) and
// the time limit the middleware set, [Server.bodyTimeout] (408 beyond it,
// and the connection is closed).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	limit := s.limits.MaxBodyBytes
	tooLarge := &apiError{Status: http.StatusRequestEntityTooLarge, Type: typeInvalidRequest, Code: "request_too_large", Kind: kindBodyTooLarge,
		Message: fmt.Sprintf("The request body is larger than this server's limit of %s (gramc serve --max-body).", sizeText(limit))}
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err == nil {
		// The run goes on without a read deadline: one that passed would
		// cancel it as if the client had gone away.
		http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge
	case errors.As(err, &ne) && ne.Timeout():
		wait, flag := s.bodyTimeout()
		return nil, &apiError{Status: http.StatusRequestTimeout, Type: typeInvalidRequest, Code: "request_timeout", Kind: kindReadTimeout,
			Message: fmt.Sprintf("The request body did not arrive within %v, this server's limit (gramc serve %s). Send it at once.", wait, flag),
			Header:  http.Header{"Connection": {"close"}}}
	case err != nil:
		return nil, &apiError{Status: statusClientGone, Type: typeInvalidRequest, Kind: kindDisconnected, Message: "reading the request body failed: " + err.Error()}
	}
	return body, nil
}

// sizeText writes a size in bytes for people.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
