package schedule

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/testutil/holder"
)

// TestMain lets a test start this binary as another process that keeps a
// profile as a server keeps one for an idle warm browser ("idle").
func TestMain(m *testing.M) {
	holder.Serve(map[string]holder.Hold{"idle": holdIdle})
	os.Exit(m.Run())
}

// holdIdle claims profile folder dir and lets it go as soon as another
// process asks for it (profiles.WatchWanted), as profiles.Pool does for an
// idle browser.
func holdIdle(dir string) (func(), error) {
	l, err := profiles.Claim(dir)
	if err != nil {
		return nil, err
	}
	_, err = profiles.WatchWanted(l.Dir(), l.Unlock) // Unlock: once, however often asked
	return nil, err
}

// TestScheduledRunGetsIdleProfile: a scheduled run on a profile another
// process keeps for an idle browser asks for it and runs once it is
// handed over. On the old code the runner waited 0 s: nobody asked, and
// the fire stayed Busy until that browser's --idle ran out.
func TestScheduledRunGetsIdleProfile(t *testing.T) {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	e := newEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Status</title><p id="ok">all good</p>`)
	}))
	defer srv.Close()
	flow := filepath.Join(filepath.Dir(e.flow), "status.flow")
	if err := os.WriteFile(flow, []byte(`flow status "the status page"
param base_url: string = "http://127.0.0.1:1"

defaults wait: 5s retries: 0

open "{{ base_url }}/status"
t = text "#ok"
return {"t": t}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := profiles.Dir("kept")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h := holder.Start(t, "idle", dir)
	defer h.Stop()
	d := Def{Name: "status", Every: Duration(time.Hour), Profile: "kept", Args: map[string]string{"base_url": srv.URL}}
	if err := Prepare(&d, flow, "", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	var warns []string
	out := (&LocalRunner{Warn: func(m string) { warns = append(warns, m) }}).Run(t.Context(), Job{Def: &d})
	if out.Busy != "" || out.Status != runs.StatusOK || len(warns) > 0 {
		t.Fatalf("outcome %+v, warnings %q, want the run ok on the handed-over profile", out, warns)
	}
}
