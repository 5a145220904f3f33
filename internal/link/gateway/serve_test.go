package gateway

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCheck: a token, a whole TLS pair and desktop credentials are needed.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		o    Options
		so   ServeOptions
		want string
	}{
		{Options{SharedDeviceToken: true}, ServeOptions{}, "--token is required"},
		{Options{Token: "t", SharedDeviceToken: true}, ServeOptions{CertFile: "c.pem"}, "go together"},
		{Options{Token: "t"}, ServeOptions{}, "desktops need credentials"},
		{Options{Token: "t", SharedDeviceToken: true}, ServeOptions{}, ""},
		{Options{Token: "t", Devices: &DeviceTokens{}}, ServeOptions{CertFile: "c", KeyFile: "k"}, ""},
		{Options{Token: "t", SharedDeviceToken: true, MaxTasks: -1}, ServeOptions{}, "--max-tasks -1"},
		{Options{Token: "t", SharedDeviceToken: true, TaskTTL: time.Hour, TaskMaxTTL: time.Minute}, ServeOptions{}, "the ttl at most the maximum"},
	} {
		err := c.o.Check(c.so)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v %+v: %v, want %q", c.o, c.so, err, c.want)
		}
	}
}

// TestServe: the handler answers on the listener (the token guards
// /devices); ending ctx drains and shuts down with no error.
func TestServe(t *testing.T) {
	g := New(Options{Token: "tok", SharedDeviceToken: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Serve(ctx, ln, ServeOptions{Drain: time.Second}) }()
	base := "http://" + ln.Addr().String() + "/devices"
	for _, tok := range []string{"", "tok"} {
		req, _ := http.NewRequest("GET", base, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[string]int{"": 401, "tok": 200}[tok]; resp.StatusCode != want {
			t.Errorf("token %q: %s, want %d", tok, resp.Status, want)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(time.Minute): // only catches a hang
		t.Fatal("Serve did not end after ctx")
	}
	if err := New(Options{}).Serve(context.Background(), ln, ServeOptions{KeyFile: "k"}); err == nil {
		t.Error("half a TLS pair served")
	}
}

// TestStatusAlone: a gateway alone reports its mode and desktops, and no replicas (it listed a
// placeholder {"name":"","started":"0001-01-01T00:00:00Z"}).
func TestStatusAlone(t *testing.T) {
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", nil), nil)
	x.waitDevices(t, 1)
	resp, err := httpClient(testToken).Get("http://" + x.addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st["mode"] != "alone" || st["ready"] != true || st["devices"] != 1.0 || st["totalDevices"] != 1.0 {
		t.Errorf("status: %v", st)
	}
	if r, ok := st["replicas"]; ok {
		t.Errorf("a gateway alone lists replicas: %v", r)
	}
}
