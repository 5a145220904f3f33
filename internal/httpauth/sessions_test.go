package httpauth

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSessionsGuard: a session answers the token that opened it only;
// ended sessions are forgotten by the sweep; a stateless request's
// session header is dropped, not checked.
func TestSessionsGuard(t *testing.T) {
	ended := map[string]bool{}
	var seen []string // the session header the endpoint got
	n := 0
	s := &Sessions{
		Live:      func(id string) bool { return !ended[id] },
		Stateless: func(r *http.Request) bool { return r.Header.Get("Stateless") != "" },
	}
	h := s.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get(sessionHeader))
		if r.Header.Get(sessionHeader) == "" && r.Header.Get("Stateless") == "" {
			n++
			w.Header().Set(sessionHeader, fmt.Sprint("s", n)) // an initialize: a new session
		}
	}))
	do := func(token, sid string, stateless bool) int {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		if sid != "" {
			r.Header.Set(sessionHeader, sid)
		}
		if stateless {
			r.Header.Set("Stateless", "1")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	do("a", "", false) // opens s1 for a
	for _, c := range []struct {
		token, sid string
		want       int
	}{{"a", "s1", 200}, {"b", "s1", 404}, {"", "s1", 404}, {"a", "s9", 404}} {
		if got := do(c.token, c.sid, false); got != c.want {
			t.Errorf("token %q in session %s: %d, want %d", c.token, c.sid, got, c.want)
		}
	}
	seen = nil
	if got := do("b", "s1", true); got != 200 || seen[0] != "" {
		t.Errorf("a stateless request naming a session: %d, the endpoint saw %q", got, seen)
	}
	ended["s1"] = true
	for range sweepEvery - 1 {
		do("a", "", false)
	}
	if s.Len() != sweepEvery-1 {
		t.Errorf("after the sweep %d sessions are known, want %d (s1 ended)", s.Len(), sweepEvery-1)
	}
}
