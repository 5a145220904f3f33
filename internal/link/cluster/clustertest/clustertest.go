// Package clustertest starts embedded NATS clusters for tests: replicas on 127.0.0.1 random
// ports, their data under the test's temporary folder, stopped when the test ends.
package clustertest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/cluster"
)

// FreeAddrs returns n loopback addresses with ports free at the time of the call.
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

// Configs returns the Configs of an n-replica embedded cluster: names r1..rn, routes between
// loopback random ports, data under dir, the route secret secret.
func Configs(t testing.TB, n int, dir, secret string, log *slog.Logger) []cluster.Config {
	t.Helper()
	addrs := FreeAddrs(t, n)
	var out []cluster.Config
	for i := range n {
		var peers []string
		for j, a := range addrs {
			if j != i {
				peers = append(peers, a)
			}
		}
		out = append(out, cluster.Config{
			Name: fmt.Sprintf("r%d", i+1), ClusterListen: addrs[i], Peers: peers,
			DataDir: filepath.Join(dir, fmt.Sprintf("r%d", i+1)), Secret: secret, Logger: log,
		})
	}
	return out
}

// Start starts an n-replica embedded cluster and waits (at most 60 s) until JetStream answers
// on every replica. The nodes are closed when the test ends (Close is idempotent, so a test
// may kill or close one before).
//
// A start that fails is tried again (at most 3 times in all) on new ports and a new data folder:
// FreeAddrs' ports are free when it looks, and another test process (go test runs packages at
// once) can take one before NATS binds it ("the embedded NATS server did not start").
func Start(t testing.TB, n int) []*cluster.Node {
	t.Helper()
	dir := t.TempDir()
	for attempt := 1; ; attempt++ {
		cfgs := Configs(t, n, filepath.Join(dir, fmt.Sprintf("try%d", attempt)), "test-secret", Logger())
		nodes, err := startAll(cfgs)
		if err == nil {
			return ready(t, nodes)
		}
		if attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("cluster start, try %d: %v; again on other ports", attempt, err)
	}
}

// StartConfigs starts nodes from cfgs (all at once, as replicas started by systemd would) and
// waits until JetStream answers on each.
func StartConfigs(t testing.TB, cfgs []cluster.Config) []*cluster.Node {
	t.Helper()
	nodes, err := startAll(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	return ready(t, nodes)
}

// startAll starts nodes from cfgs at once; when one fails, the others are closed and its error
// returned.
func startAll(cfgs []cluster.Config) ([]*cluster.Node, error) {
	nodes := make([]*cluster.Node, len(cfgs))
	errs := make(chan error, len(cfgs))
	for i, c := range cfgs {
		go func() {
			nd, err := cluster.Start(context.Background(), c)
			nodes[i] = nd
			errs <- err
		}()
	}
	var first error
	for range cfgs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		for _, nd := range nodes {
			if nd != nil {
				nd.Close()
			}
		}
		return nil, first
	}
	return nodes, nil
}

// ready closes nodes when the test ends and waits (at most 60 s) until JetStream answers on each.
func ready(t testing.TB, nodes []*cluster.Node) []*cluster.Node {
	t.Helper()
	t.Cleanup(func() {
		for _, nd := range nodes {
			nd.Close()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, nd := range nodes {
		for nd.Ready(ctx) != nil {
			if ctx.Err() != nil {
				t.Fatalf("replica %s: JetStream not ready after 60s", nd.Name())
			}
			time.Sleep(50 * time.Millisecond) // polling the cluster's own readiness, not timing
		}
	}
	return nodes
}

// Logger is the log of test nodes: warnings and errors on stderr when RPA_TEST_LOG is set,
// else nothing.
func Logger() *slog.Logger {
	if os.Getenv("RPA_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// StartConfigsNoWait starts nodes from cfgs without waiting for JetStream (a replica whose peers
// are not up yet). They are closed when the test ends.
func StartConfigsNoWait(t testing.TB, cfgs []cluster.Config) []*cluster.Node {
	t.Helper()
	var nodes []*cluster.Node
	for _, c := range cfgs {
		nd, err := cluster.Start(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nd.Close)
		nodes = append(nodes, nd)
	}
	return nodes
}
