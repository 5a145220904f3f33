package clustered

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/gateway"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

const token = "cluster-schedule-test-token"

// landed is one call a desktop received.
type landed struct {
	device string
	region string
}

// desktop links a desktop offering the tool "meter" to the replicas (urls, the first first),
// as `rpa connect` with several addresses does; each call it gets goes to calls.
func desktop(t *testing.T, id string, urls []string, calls chan<- landed) (stop func()) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "desk-" + id, Version: "t"}, nil)
	type in struct {
		Region string `json:"region"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "meter", Description: "read the meters"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		calls <- landed{id, a.Region}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id + " read " + a.Region}}}, nil, nil
	})
	c, err := connect.New(connect.Options{
		URL: urls[0], More: urls[1:], DeviceID: id, Token: token, Server: srv,
		ToolNames: func() []string { return []string{"meter"} },
		Backoff:   connect.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Grace: -1, ResetAfter: time.Second},
		Logger:    slog.New(slog.DiscardHandler), RelinkJitter: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

// waitOffered waits until every gateway sees (device "" : no) desktop offering meter as want.
func waitOffered(t *testing.T, gws []*gateway.Gateway, device, want string) {
	t.Helper()
	poll(t, func() bool {
		for _, g := range gws {
			if g.Offered("meter", device) != want {
				return false
			}
		}
		return true
	}, func() string {
		return fmt.Sprintf("the replicas do not see desktop %q offering meter (want %q)", device, want)
	})
}

// poll waits until cond holds: the cluster's view, the queue's state, the replicated bucket, which
// tell an outside caller nothing when they change. It looks every 20 ms; its bound only catches a
// hang.
func poll(t *testing.T, cond func() bool, what func() string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
	}
}

// TestClusterScheduleFiresOnce: three gateway replicas on embedded NATS, each running the
// schedules with one fake clock. A schedule for "any desktop offering meter" fires once per due
// time across the replicas and lands on the desktop linked to the third replica; a schedule for
// an offline desktop lands when it links within the grace window, and is noted as missed when it
// does not.
func TestClusterScheduleFiresOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	nodes := clustertest.Start(t, 3)
	t0 := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	clock := schedule.NewFakeClock(t0)
	ctx, cancel := context.WithCancel(context.Background())
	logs := make(chan string, 1000)
	var gws []*gateway.Gateway
	var urls []string
	var scheds []*Scheduler
	runDone := make(chan struct{}, 3)
	var bases []string
	for i, n := range nodes {
		g := gateway.New(gateway.Options{Token: token, SharedDeviceToken: true, Cluster: n, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		h := Handler(func() *Scheduler { return scheds[i] })
		g.Mount("/schedules", h)
		g.Mount("/schedules/", h)
		hs := httptest.NewServer(g.Handler())
		t.Cleanup(func() { g.Close(); hs.Close() })
		gws = append(gws, g)
		bases = append(bases, hs.URL)
		urls = append(urls, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws")
		s, err := Open(ctx, Config{Node: n, Lander: g, Clock: clock, Poll: 50 * time.Millisecond, Log: func(m string) {
			t.Logf("%s: %s", n.Name(), m)
			select {
			case logs <- m:
			default:
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		scheds = append(scheds, s)
	}
	for _, s := range scheds {
		go func() { s.Run(ctx); runDone <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		for range scheds {
			<-runDone
		}
	})
	// Every replica ready and seeing the others before a desktop links.
	for _, g := range gws {
		var st gateway.Status
		poll(t, func() bool {
			st = g.Status(ctx)
			return st.Ready && len(st.Replicas) == len(gws)
		}, func() string { return fmt.Sprintf("replica not ready: %+v", st) })
	}
	calls := make(chan landed, 100)
	desktop(t, "d1", []string{urls[2], urls[0], urls[1]}, calls)
	waitOffered(t, gws, "", "d1")

	// Bad input is refused at Add.
	for _, c := range []struct {
		d    Def
		want string
	}{
		{Def{Name: "x", Every: schedule.Duration(time.Minute)}, "--tool"},
		{Def{Name: "x", Tool: "meter", Cron: "0 8 * *"}, `--cron "0 8 * *"`},
		{Def{Name: "x", Tool: "meter", Cron: "0 8 * * *", TZ: "Asia/Nowhere"}, "unknown time zone"},
		{Def{Name: "X Y", Tool: "meter", Cron: "0 8 * * *"}, "X Y"},
	} {
		if _, err := scheds[0].Add(ctx, c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%+v) = %v, want %q", c.d, err, c.want)
		}
	}

	args := map[string]json.RawMessage{"region": json.RawMessage(`"110000"`)}
	if _, err := scheds[0].Add(ctx, Def{Name: "meter", Tool: "meter", Args: args, Every: schedule.Duration(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := scheds[1].Add(ctx, Def{Name: "meter", Tool: "meter", Every: schedule.Duration(time.Hour)}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("a second schedule of the name: %v", err)
	}
	wait := func(what string) landed {
		t.Helper()
		select {
		case c := <-calls:
			return c
		case <-time.After(60 * time.Second): // only catches a hang
			t.Fatalf("%s: no call landed", what)
		}
		return landed{}
	}
	const fires = 3
	for i := 1; i <= fires; i++ {
		clock.Advance(time.Minute)
		if c := wait("fire"); c.device != "d1" || c.region != "110000" {
			t.Fatalf("fire %d landed as %+v", i, c)
		}
	}
	// Every replica looks again at the last time; then nothing is queued or in flight, the
	// schedule's last fire is noted, and the desktop got one call per due time.
	for _, s := range scheds {
		if err := s.Tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	idle(t, nodes[0])
	waitRecord(t, scheds[2], "meter", func(r *Record) bool {
		return r.Last != nil && r.Last.State == "ok" && r.Last.Device == "d1" && r.Last.Due.Equal(t0.Add(fires*time.Minute)) && r.Next.Equal(t0.Add((fires+1)*time.Minute))
	})
	select {
	case c := <-calls:
		t.Fatalf("a due time landed twice: %+v", c)
	default:
	}

	// A schedule for desktop d2, offline at its due time: it waits, and lands when d2 links
	// within the grace window.
	// (Through the HTTP API of the second replica.)
	api := func(method, path, body, tok string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, bases[1]+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := api("POST", "/schedules/meter/pause", "", token); code != 200 || !strings.Contains(body, `"paused":true`) {
		t.Fatalf("pause: %d %s", code, body)
	}
	late := `{"name": "late", "tool": "meter", "device": "d2", "args": {"region": "330100"}, "every": "1h", "grace": "10m"}`
	for _, c := range []struct {
		method, path, body, tok string
		code                    int
		want                    string
	}{
		{"GET", "/schedules", "", "wrong", 401, "bearer token"},
		{"POST", "/schedules", `{"name": "x", "tool": "meter", "cron": "61 * * * *"}`, token, 400, "--cron"},
		{"POST", "/schedules", `{"name": "x", "tol": "meter"}`, token, 400, `unknown field`},
		{"GET", "/schedules/nope", "", token, 404, "schedule nope: no such schedule"},
		{"POST", "/schedules", late, token, 201, `"next":"` + t0.Add(fires*time.Minute+time.Hour).Format(time.RFC3339)},
		{"POST", "/schedules", late, token, 409, "exists"},
	} {
		if code, body := api(c.method, c.path, c.body, c.tok); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %s, want %d %q", c.method, c.path, code, body, c.code, c.want)
		}
	}
	waitLog := func(sub string) { t.Helper(); waitLogLine(t, logs, sub) }
	clock.Advance(time.Hour)
	waitLog("schedule late: waiting for meter on desktop d2")
	clock.Advance(5 * time.Minute) // still within the window
	stopD2 := desktop(t, "d2", []string{urls[1], urls[2], urls[0]}, calls)
	if c := wait("late"); c.device != "d2" || c.region != "330100" {
		t.Fatalf("late fire landed as %+v", c)
	}
	waitLog("schedule late: landed on desktop d2: ok")

	// Offline past the window: missed, noted in the schedule.
	stopD2()
	waitOffered(t, gws, "d2", "")
	clock.Set(t0.Add(fires*time.Minute + 2*time.Hour))
	waitLog("schedule late: waiting for meter on desktop d2")
	clock.Advance(11 * time.Minute)
	waitLog("schedule late: missed its fire")
	idle(t, nodes[0])
	waitRecord(t, scheds[0], "late", func(r *Record) bool {
		return r.Last != nil && r.Last.State == "missed" && strings.Contains(r.Last.Error, "within the grace window")
	})
	select {
	case c := <-calls:
		t.Fatalf("unexpected call %+v", c)
	default:
	}
	code, body := api("GET", "/schedules", "", token)
	var list struct{ Schedules []*Record }
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list.Schedules) != 2 || list.Schedules[0].Def.Name != "late" {
		t.Fatalf("list: %d %v %s", code, err, body)
	}
	if code, _ := api("DELETE", "/schedules/late", "", token); code != 204 {
		t.Fatalf("delete: %d", code)
	}

	// rpa gateway schedule, against the third replica.
	cli := func(args ...string) (int, string, string) {
		var o, e strings.Builder
		code := Cmd(ctx, append(args, "--url", bases[2], "--token", token), &o, &e)
		return code, o.String(), e.String()
	}
	if code, _, e := cli("add", "tally", "meter", "--device", "d1", "--cron", "0 8 * * 1-5", "--tz", "Asia/Shanghai", "--arg", "region=110000", "--arg-json", "pages=3"); code != 0 {
		t.Fatalf("cli add: %d %s", code, e)
	}
	code, out, _ := cli("show", "tally")
	if code != 0 || !strings.Contains(out, "tally") || !strings.Contains(out, "0 8 * * 1-5 Asia/Shanghai") || !strings.Contains(out, "d1") {
		t.Fatalf("cli show: %d %s", code, out)
	}
	if code, out, _ = cli("show", "tally", "--json"); code != 0 || !strings.Contains(out, `"args":{"pages":3,"region":"110000"}`) {
		t.Fatalf("cli show --json: %d %s", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"add", "x", "meter", "--cron", "0 8 * *"}, 2, `--cron "0 8 * *"`},
		{[]string{"add", "tally", "meter", "--every", "1h"}, 2, "exists"},
		{[]string{"add", "x", "meter", "--arg-json", "n=[1"}, 2, `--arg-json "n=[1": want k=JSON`},
		{[]string{"add", "x"}, 2, "want NAME and TOOL"},
		{[]string{"show", "nope"}, 2, "schedule nope: no such schedule"},
		{[]string{"rm"}, 2, "want 1 argument(s)"},
		{[]string{"frob"}, 2, "unknown subcommand"},
	} {
		if code, _, e := cli(c.args...); code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("rpa gateway schedule %v: %d %q, want %d %q", c.args, code, e, c.code, c.want)
		}
	}
	if code, _, e := cli("pause", "tally"); code != 0 {
		t.Fatalf("cli pause: %d %s", code, e)
	}
	if code, out, _ = cli("list"); code != 0 || !strings.Contains(out, "paused") || !strings.Contains(out, "meter") {
		t.Fatalf("cli list: %d %s", code, out)
	}
	if code, _, e := cli("rm", "tally"); code != 0 {
		t.Fatalf("cli rm: %d %s", code, e)
	}
	var o, e strings.Builder
	if code := Cmd(ctx, []string{"list", "--url", bases[2], "--token", "wrong"}, &o, &e); code != 1 || !strings.Contains(e.String(), "401") {
		t.Errorf("a wrong token: %d %s", code, e.String())
	}
}

// waitLogLine waits for a line holding sub in logs (the lines before it are passed over).
func waitLogLine(t *testing.T, logs <-chan string, sub string) {
	t.Helper()
	deadline := time.After(60 * time.Second) // only catches a hang
	for {
		select {
		case m := <-logs:
			if strings.Contains(m, sub) {
				return
			}
		case <-deadline:
			t.Fatalf("no log line %q", sub)
		}
	}
}

// idle waits until the queue of fires holds nothing waiting or in flight.
func idle(t *testing.T, n *cluster.Node) {
	t.Helper()
	ctx := context.Background()
	poll(t, func() bool {
		c, err := n.JetStream().Consumer(ctx, "rpa_queue_"+QueueName, "workers")
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	}, func() string { return "the queue of fires did not empty" })
}

// waitRecord waits until s's copy of schedule name satisfies ok (a replica's copy of the bucket
// may be an instant behind a write).
func waitRecord(t *testing.T, s *Scheduler, name string, ok func(*Record) bool) {
	t.Helper()
	var r *Record
	var err error
	poll(t, func() bool {
		r, err = s.Get(context.Background(), name)
		return err == nil && ok(r)
	}, func() string {
		if r != nil && r.Last != nil {
			return fmt.Sprintf("schedule %s: %v %+v; last: %+v", name, err, r, *r.Last)
		}
		return fmt.Sprintf("schedule %s: %v %+v", name, err, r)
	})
}
