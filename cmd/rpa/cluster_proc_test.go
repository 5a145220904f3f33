//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
)

// replicaOf returns the replica /devices at addr says id is linked to ("" when not listed).
func replicaOf(addr, id string) string {
	req, _ := http.NewRequest("GET", "http://"+addr+"/devices", nil)
	req.Header.Set("Authorization", "Bearer "+linkToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var out struct {
		Devices []struct {
			DeviceID string   `json:"deviceId"`
			Replica  string   `json:"replica"`
			Tools    []string `json:"tools"`
		} `json:"devices"`
	}
	if json.NewDecoder(resp.Body).Decode(&out) != nil {
		return ""
	}
	for _, d := range out.Devices {
		if d.DeviceID == id && strings.Contains(strings.Join(d.Tools, ","), "workflow_query_power_data") {
			return d.Replica
		}
	}
	return ""
}

// TestGatewayReplicasBinaries: three `rpa gateway` processes clustered with NATS embedded, two
// `rpa connect` desktops given every replica's address, and the official TypeScript client
// calling the demo flow (50 rows) through a replica that is not the desktop's; then that
// desktop's replica is killed, the desktop moves, and the same call through the same foreign
// replica gets its 50 rows again.
func TestGatewayReplicasBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary, starts Chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	tsDir, _ := filepath.Abs(filepath.Join("..", "..", "e2e", "ts"))
	if _, err := os.Stat(filepath.Join(tsDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("e2e/ts/node_modules missing (npm ci in e2e/ts)")
	}
	app, err := demoapp.Start(demoapp.Options{Delay: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	src, err := os.ReadFile(filepath.Join("..", "..", "flows", "query_power_data.flow"))
	if err != nil {
		t.Fatal(err)
	}
	routes := clustertest.FreeAddrs(t, 3)
	listens := clustertest.FreeAddrs(t, 3)
	var gws []*proc
	var wsURLs []string
	for i := range 3 {
		var peers []string
		for j, r := range routes {
			if j != i {
				peers = append(peers, r)
			}
		}
		home := t.TempDir()
		p, addr := startGatewayProc(t, home, listens[i], "--cluster-listen", routes[i], "--cluster-peers", strings.Join(peers, ","),
			"--replica-name", fmt.Sprintf("g%d", i+1))
		gws = append(gws, p)
		wsURLs = append(wsURLs, "ws://"+addr+"/ws")
	}
	deskA := startProcArgs(t, wsURLs, 0, "deskA", src)
	deskB := startProcArgs(t, wsURLs, 1, "deskB", src)
	waitReplica := func(addr, id string, ok func(string) bool) {
		t.Helper()
		waitFor(t, id+" listed at "+addr+" as wanted", func() bool {
			r := replicaOf(addr, id)
			return r != "" && ok(r)
		}, func() string { return fmt.Sprintf("now %q; deskA:\n%s", replicaOf(addr, id), deskA.log()) })
	}
	g3 := listens[2]
	waitReplica(g3, "deskA", func(r string) bool { return r == "g1" })
	waitReplica(g3, "deskB", func(r string) bool { return r == "g2" })

	tsCall := func() string {
		t.Helper()
		calls, _ := json.Marshal([]map[string]any{{"name": "workflow_query_power_data", "arguments": map[string]any{
			"deviceId": "deskA", "username": demoapp.DemoUsername, "password": demoapp.DemoPassword, "region": "110000", "base_url": app.URL,
		}}})
		cmd := exec.Command(node, "gateway.mjs")
		cmd.Dir = tsDir
		cmd.Env = append(os.Environ(), "GATEWAY_URL=http://"+g3+"/mcp", "GATEWAY_TOKEN="+linkToken, "CALLS="+string(calls))
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("node gateway.mjs: %v\n%s", err, stderr)
		}
		var res struct {
			Calls []struct {
				Text  string `json:"text"`
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			} `json:"calls"`
		}
		if err := json.Unmarshal(out, &res); err != nil || len(res.Calls) != 1 {
			t.Fatalf("bad output %q: %v", out, err)
		}
		if res.Calls[0].Error != nil {
			t.Fatalf("the call through g3: %+v", res.Calls[0].Error)
		}
		return res.Calls[0].Text
	}
	want := min(50, len(demoapp.Records("110000"))) // the flow reads the first page (50 rows)
	rows := func(text string) int {
		var r struct {
			Outputs struct {
				Count int `json:"count"`
			} `json:"outputs"`
		}
		_ = json.Unmarshal([]byte(text), &r)
		return r.Outputs.Count
	}
	if n := rows(tsCall()); n != want {
		t.Fatalf("through g3 to deskA on g1: %d rows, want %d", n, want)
	}
	// g1 dies; deskA moves to another replica; the same call through g3 works again.
	gws[0].signal(syscall.SIGKILL)
	gws[0].waitExit(t, 10*time.Second)
	waitReplica(g3, "deskA", func(r string) bool { return r != "g1" })
	if n := rows(tsCall()); n != want {
		t.Fatalf("after g1 died: %d rows, want %d", n, want)
	}
	for _, p := range append(gws, deskA, deskB) {
		if strings.Contains(p.log(), linkToken) || strings.Contains(p.log(), demoapp.DemoPassword) {
			t.Error("a secret reached a log")
		}
	}
}

// startProcArgs starts `rpa connect` for id with the replicas' addresses (first first) and the
// demo flow in a flows folder of its own.
func startProcArgs(t *testing.T, wsURLs []string, first int, id string, flow []byte) *proc {
	t.Helper()
	home := t.TempDir()
	flows := filepath.Join(home, "flows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "query_power_data.flow"), flow, 0o644); err != nil {
		t.Fatal(err)
	}
	urls := append(append([]string{}, wsURLs[first:]...), wsURLs[:first]...)
	args := append([]string{"connect"}, urls...)
	args = append(args, "--device-id", id, "--token", linkToken, "--flows", flows)
	return startProc(t, home, args...)
}
