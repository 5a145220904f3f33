package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/connect"
)

// TestClusterDeviceRevoked: every replica has the same device file; A is linked to r2 and B to
// r3. A's line is deleted from r1's file only: A's link on r2 closes (4001, "revoked"), its token
// is refused by every replica although r2's and r3's files still hold its line, and B carries on.
func TestClusterDeviceRevoked(t *testing.T) {
	src, toks := deviceFile(t, "A", "B")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	rs := startReplicas(t, 3, func(i int, o *Options) {
		p := filepath.Join(t.TempDir(), "devices")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		dt, err := LoadDeviceTokens(p)
		if err != nil {
			t.Fatal(err)
		}
		o.Devices, o.SharedDeviceToken = dt, false
	})
	deskWith := func(first int, id string, once bool) *desk {
		urls := rs.urls(first)
		if once {
			urls = urls[:1]
		}
		return startDesk(t, urls[0], id, deskServer(id, nil), func(o *connect.Options) {
			o.More, o.Token, o.Once, o.RelinkJitter = urls[1:], toks[id], once, 50*time.Millisecond
		})
	}
	a := deskWith(1, "A", true)
	deskWith(2, "B", false)
	rs.waitLinked(t, map[string]string{"A": "r2", "B": "r3"})

	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "A ") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(paths[0]+".new", []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(paths[0]+".new", paths[0]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
	case <-time.After(hangGuard): // only catches a link that is never closed
		t.Fatal("the revoked device's link on r2 is still open")
	}
	if !errors.Is(a.err, connect.ErrRefused) || !strings.Contains(a.err.Error(), "revoked") {
		t.Errorf("A ended with %v, want a refusal saying it was revoked", a.err)
	}
	for i := range rs.gws {
		again := deskWith(i, "A", true)
		<-again.done
		if !errors.Is(again.err, connect.ErrRefused) || !strings.Contains(again.err.Error(), "401") {
			t.Errorf("A linking again to r%d: %v, want refused (401)", i+1, again.err)
		}
	}
	rs.waitLinked(t, map[string]string{"B": "r3"})
}
