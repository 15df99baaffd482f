// The OpenAPI 3.1 document of the server, at /openapi.json: the routes,
// their bodies and errors, with the served agents as the values of the
// model and agent names and, when the server asks for credentials, the
// bearer scheme on every route but the probes.

package serve

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

//go:embed openapi.json
var openAPITemplate []byte

// openAPI returns the server's document.
func (s *Server) openAPI() ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(openAPITemplate, &doc); err != nil {
		return nil, err
	}
	doc["info"].(map[string]any)["version"] = s.version
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	names := make([]any, len(s.names))
	for i, n := range s.names {
		names[i] = n
	}
	schemas["AgentName"].(map[string]any)["enum"] = names
	if s.auth != nil {
		doc["security"] = []any{map[string]any{"bearer": []any{}}}
	} else {
		delete(doc["components"].(map[string]any), "securitySchemes")
		for _, p := range []string{"/healthz", "/readyz"} {
			delete(doc["paths"].(map[string]any)[p].(map[string]any)["get"].(map[string]any), "security")
		}
	}
	return json.MarshalIndent(doc, "", "  ")
}

// serveOpenAPI answers GET /openapi.json.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.openapi)
	w.Write([]byte("\n"))
}
