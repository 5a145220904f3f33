package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/columns"
	"github.com/rpa-dev/rpa/internal/link/gateway"
)

// runGatewayStatus is `rpa gateway status`: GET /status of a running gateway (replica) and
// print its replicas with the desktops linked to each and the calls in flight. Exit 0 when it
// is ready, 1 when not (or unreachable), 2 on usage.
func runGatewayStatus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("gateway status", stderr)
	url := fs.String("url", "http://127.0.0.1:8790", "the gateway's base URL (its --listen)")
	token := fs.String("token", "", "the agents' bearer token (default $RPA_GATEWAY_TOKEN)")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if done, code := parseFlags(fs, args); done {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(*url, "/")+"/status", nil)
	if err != nil {
		return fail(stderr, exitUsage, "gateway status", err)
	}
	if t := cmp.Or(*token, os.Getenv("RPA_GATEWAY_TOKEN")); t != "" {
		req.Header.Set("Authorization", "Bearer "+t)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fail(stderr, exitFailed, "gateway status", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail(stderr, exitFailed, "gateway status", fmt.Errorf("%s answered %s (a wrong --token answers 401)", *url, resp.Status))
	}
	var st gateway.Status
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err := json.Unmarshal(body, &st); err != nil {
		return fail(stderr, exitFailed, "gateway status", fmt.Errorf("%s/status is not a gateway's status: %v", *url, err))
	}
	if *asJSON {
		stdout.Write(body)
	} else {
		ready := "ready"
		if !st.Ready {
			ready = "NOT READY: " + st.Reason
		}
		name := st.Replica
		if name == "" {
			name = "gateway"
		}
		fmt.Fprintf(stdout, "%s (%s): %s; %d desktops here, %d calls in flight; %d desktops in all\n", name, st.Mode, ready, st.Devices, st.InFlight, st.Total)
		if st.Mode != "alone" {
			fmt.Fprintf(stdout, "jetstream: %s; peers: %s\n", st.JetStream, strings.Join(st.Peers, ", "))
			tw := columns.NewWriter(stdout, 2, 2)
			fmt.Fprintln(tw, "REPLICA\tDESKTOPS\tIN FLIGHT\tSTATE")
			for _, r := range st.Replicas {
				state := "up"
				if r.Draining {
					state = "draining"
				}
				if r.Self {
					state += " (this one)"
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", r.Name, r.Devices, r.InFlight, state)
			}
			tw.Flush()
		}
	}
	if !st.Ready {
		return exitFailed
	}
	return exitOK
}
