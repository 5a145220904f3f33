package mcpws

import "fmt"

// DialError is Dial's error when the server answered the WebSocket handshake with an HTTP status
// instead of switching protocols (401 for a refused token, 503 for a gateway that is restarting).
type DialError struct {
	URL        string // without its query string
	StatusCode int    // e.g. 401
	Status     string // e.g. "401 Unauthorized"
}

// Error reads "dial URL: server answered STATUS".
func (e *DialError) Error() string {
	return fmt.Sprintf("dial %s: server answered %s", e.URL, e.Status)
}
