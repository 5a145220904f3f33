package gateway

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/connect"
)

// deviceFile creates a device token file with a token for each id.
func deviceFile(t *testing.T, ids ...string) (string, map[string]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "devices")
	toks := map[string]string{}
	for _, id := range ids {
		tok, err := AddDevice(path, id)
		if err != nil {
			t.Fatal(err)
		}
		toks[id] = tok
	}
	return path, toks
}

// TestImpostorRefused: a desktop holding another device's token, or the gateway's agent token,
// cannot take a device's id; calls keep reaching the real desktop.
func TestImpostorRefused(t *testing.T) {
	path, toks := deviceFile(t, "office-pc-7", "lab-3")
	devs, err := LoadDeviceTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	x := startGateway(t, "", Options{Devices: devs})
	startDesk(t, x.wsURL(), "office-pc-7", deskServer("real", nil), func(o *connect.Options) { o.Token = toks["office-pc-7"] })
	x.waitDevices(t, 1)

	for _, c := range []struct{ name, token, want string }{
		{"another device's token", toks["lab-3"], "belongs to another device"},
		{"the agents' token", testToken, "HTTP 401"},
		{"no token", "", "HTTP 401"},
		{"its own stolen token, while it is connected", toks["office-pc-7"], "already connected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			imp := startDesk(t, x.wsURL(), "office-pc-7", deskServer("impostor", nil), func(o *connect.Options) {
				o.Token = c.token
				o.Once = true
			})
			<-imp.done
			if !errors.Is(imp.err, connect.ErrRefused) || !strings.Contains(imp.err.Error(), c.want) {
				t.Errorf("impostor ended with %v, want a refusal saying %q", imp.err, c.want)
			}
		})
	}
	cs := agent(t, x.mcpURL(), nil)
	for i := 0; i < 3; i++ {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "hi"}})
		if err != nil || text(res) != "real: hi" {
			t.Fatalf("echo reached %v %v, want the real desktop", res, err)
		}
	}
	if n := strings.Count(x.logs.String(), "desktop connected"); n != 1 {
		t.Errorf("%d desktop connections, want 1 (the impostors must not get in)", n)
	}
}

// TestSameIDDoesNotFlap: two honest desktops given one id (and one token): the first keeps its
// link; the second is refused (again and again) and says why, instead of replacing it.
func TestSameIDDoesNotFlap(t *testing.T) {
	path, toks := deviceFile(t, "dup")
	devs, err := LoadDeviceTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	x := startGateway(t, "", Options{Devices: devs})
	first := startDesk(t, x.wsURL(), "dup", deskServer("A", nil), func(o *connect.Options) { o.Token = toks["dup"] })
	waitState(t, first, connect.StateUp)
	x.waitDevices(t, 1)
	logs := &logBuf{}
	second := startDesk(t, x.wsURL(), "dup", deskServer("B", nil), func(o *connect.Options) {
		o.Token = toks["dup"]
		o.Logger = slogTo(logs)
		o.Backoff.Refused, o.Backoff.RefusedMax = 10*time.Millisecond, 20*time.Millisecond // so the test sees several tries
	})
	for i := 0; i < 3; i++ {
		waitState(t, second, connect.StateRefused)
	}
	select {
	case s := <-first.states:
		t.Errorf("the first desktop's link changed state (%v) while the second tried its id", s)
	default:
	}
	if !strings.Contains(logs.String(), "already connected from another desktop") {
		t.Errorf("the refused desktop does not say why:\n%s", logs.String())
	}
	cs := agent(t, x.mcpURL(), nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "hi"}})
	if err != nil || text(res) != "A: hi" {
		t.Errorf("echo = %v %v, want the first desktop", res, err)
	}
	if n := strings.Count(x.logs.String(), "desktop connected"); n != 1 {
		t.Errorf("%d desktop connections, want 1", n)
	}
	// Once the first desktop leaves, the second gets the id.
	first.stop()
	waitState(t, second, connect.StateUp)
}

func TestDeviceTokensFile(t *testing.T) {
	path, toks := deviceFile(t, "a", "b")
	d, err := LoadDeviceTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := d.Owner(toks["b"]); !ok || id != "b" {
		t.Errorf("Owner(b's token) = %q %v", id, ok)
	}
	if _, ok := d.Owner("nope"); ok {
		t.Error("an unknown token has an owner")
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), toks["a"]) {
		t.Error("the file holds a token in clear")
	}
	if _, err := AddDevice(path, "a"); err == nil {
		t.Error("a second token for the same id was issued")
	}
	// Revoking a device (removing its line) takes effect without a restart.
	lines := strings.Split(string(raw), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "b ") {
			kept = append(kept, l)
		}
	}
	os.WriteFile(path, []byte(strings.Join(kept, "\n")+"# revoked b\n"), 0o600)
	if _, ok := d.Owner(toks["b"]); ok {
		t.Error("a revoked token is still accepted")
	}
	for _, c := range []struct{ file, want string }{
		{"a sha256:00\n", ":1: device \"a\": the credential must be sha256:"},
		{"a\n", ":1: want `DEVICE-ID sha256:HEX`"},
		{"# c\na sha256:" + strings.Repeat("ab", 32) + "\na sha256:" + strings.Repeat("cd", 32) + "\n", ":3: device \"a\" is already listed on line 2"},
		{"a sha256:" + strings.Repeat("ab", 32) + "\nb sha256:" + strings.Repeat("ab", 32) + "\n", "same token as"},
	} {
		p := filepath.Join(t.TempDir(), "devices")
		os.WriteFile(p, []byte(c.file), 0o600)
		if _, err := LoadDeviceTokens(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.file, err, c.want)
		}
	}
}

// TestRevokedDeviceLinkCloses: removing a device's line from the device file closes its live
// link at once (close 4001, which the desktop reports as a refusal saying it was revoked), a
// call made right after the removal never runs on it, and the other devices stay linked.
func TestRevokedDeviceLinkCloses(t *testing.T) {
	path, toks := deviceFile(t, "office-pc-7", "lab-3")
	devs, err := LoadDeviceTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	x := startGateway(t, "", Options{Devices: devs})
	var runs runCount
	revoked := startDesk(t, x.wsURL(), "office-pc-7", deskServer("pc7", &runs), func(o *connect.Options) {
		o.Token = toks["office-pc-7"]
		o.Once = true
	})
	startDesk(t, x.wsURL(), "lab-3", deskServer("lab3", nil, "lab_only"), func(o *connect.Options) { o.Token = toks["lab-3"] })
	x.waitDevices(t, 2)
	cs := agent(t, x.mcpURL(), nil)
	call := func(key string) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow",
			Arguments: map[string]any{"key": key, "ms": 0, "deviceId": "office-pc-7"}})
	}
	if res, err := call("before"); err != nil || res.IsError || runs.get("before") != 1 {
		t.Fatalf("a call before the revocation: %v %v (runs %d)", res, err, runs.get("before"))
	}

	// Revoke office-pc-7: its line leaves the file (written whole, then renamed).
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "office-pc-7 ") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(path+".new", []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if res, err := call("after"); err == nil && !res.IsError {
		t.Errorf("a call after the revocation was answered: %s", text(res))
	}
	if n := runs.get("after"); n != 0 {
		t.Errorf("the revoked desktop ran a call made after its revocation (%d)", n)
	}
	select {
	case <-revoked.done:
	case <-time.After(hangGuard): // only catches a link that is never closed
		t.Fatal("the revoked device's link is still open")
	}
	if !errors.Is(revoked.err, connect.ErrRefused) || !strings.Contains(revoked.err.Error(), "revoked") {
		t.Errorf("the revoked desktop ended with %v, want a refusal saying it was revoked", revoked.err)
	}
	x.waitDevices(t, 1)
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lab_only", Arguments: map[string]any{}}); err != nil || text(res) != "lab3 ran lab_only" {
		t.Errorf("the other device after the revocation: %v %v", res, err)
	}
}
