package clustered

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// TestAPIRefusalsNotEchoed: every refusal of the schedules API names the
// field and the caller's text by its length when long (lang.Echo), and
// never sends back a webhook URL's path (it may hold a token): a 100 kB
// name, cron, zone, duration, anchor, missed or field name, a huge number
// and a token in a refused webhook were sent back whole.
func TestAPIRefusalsNotEchoed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NATS")
	}
	node := clustertest.Start(t, 3)[0] // JetStream in cluster mode wants its peers
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Open(ctx, Config{Node: node, Lander: &fakeLander{n: map[string]int{}, calls: make(chan string, 1)},
		Clock: schedule.NewFakeClock(time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)), Log: func(m string) { t.Log(m) }})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(Handler(func() *Scheduler { return s }))
	defer hs.Close()
	const canary = "tok-CANARY-5e2b"
	long := canary + strings.Repeat("x", 100_000)
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"POST", "/schedules", `{"name":"` + long + `","tool":"t","every":"1h"}`, 400, "schedule name a text too long to show (100015 bytes)"},
		{"POST", "/schedules", `{"name":"a","tool":"t","cron":"` + long + `"}`, 400, "--cron a text too long to show"},
		{"POST", "/schedules", `{"name":"a","tool":"t","cron":"0 8 * * *","tz":"` + long + `"}`, 400, "--tz a text too long to show"},
		{"POST", "/schedules", `{"name":"a","tool":"t","every":"1h","missed":"` + long + `"}`, 400, "--missed a text too long to show"},
		{"POST", "/schedules", `{"name":"a","tool":"t","every":"1h","notify":"ftp://hooks.example.com/` + canary + `"}`, 400, "--notify ftp://hooks.example.com/…: want an http:// or https:// URL"},
		{"POST", "/schedules", `{"name":"a","tool":"t","every":"1h","notify":"https://hooks.example.com:99999/` + canary + `"}`, 400, "--notify https://hooks.example.com:99999/…: bad port"},
		{"POST", "/schedules", `{"name":"a","tool":"t","every":"` + long + `"}`, 400, "every: "},
		{"POST", "/schedules", `{"name":"a","tool":"t","every":"1h","anchor":"` + long + `"}`, 400, "anchor: "},
		{"POST", "/schedules", `{"name":"a","tool":"t","every":"1h","` + long + `":1}`, 400, "unknown field a text too long to show (100015 bytes)"},
		{"POST", "/schedules", `{"name":"a","tool":"t","every":"1h","retries":1` + strings.Repeat("0", 100_000) + `}`, 400, "retries: want a number"},
		{"POST", "/schedules", `["` + long + `"]`, 400, "want an object, got an array"},
		{"GET", "/schedules/" + long, "", 404, "schedule a text too long to show (100015 bytes): no such schedule"},
		{"DELETE", "/schedules/" + long, "", 404, "no such schedule"},
		{"POST", "/schedules/" + long + "/pause", "", 404, "no such schedule"},
		{"GET", "/schedules/nope", "", 404, "schedule nope: no such schedule"}, // a short one is named as it is
	} {
		req, _ := http.NewRequest(c.method, hs.URL+c.path, strings.NewReader(c.body))
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != c.code || strings.Contains(string(b), canary) || len(b) > 1024 || !strings.Contains(string(b), c.want) {
			t.Errorf("%s %.40s %.60s: HTTP %d, %d bytes: %.300s", c.method, c.path, c.body, resp.StatusCode, len(b), b)
		}
	}
}
