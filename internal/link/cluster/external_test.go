package cluster_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
)

// natsServerEnv makes this test binary run a nats-server (the Go module's, with JetStream) as its
// own process instead of the tests: the site's NATS of `rpa gateway --nats`.
const natsServerEnv = "RPA_TEST_RUN_NATS_SERVER"

func init() {
	dir := os.Getenv(natsServerEnv)
	if dir == "" {
		return
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoSigs: true,
		Username: "site", Password: "site-pass"})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	ns.Start()
	if !ns.ReadyForConnections(20 * time.Second) {
		fmt.Println("error not ready")
		os.Exit(1)
	}
	fmt.Println("listening", ns.ClientURL())
	// Until the test closes our stdin (or dies).
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	ns.Shutdown()
	os.Exit(0)
}

// siteNATS starts a nats-server process and returns its client URL (without credentials).
func siteNATS(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), natsServerEnv+"="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening ") {
		t.Fatalf("nats-server process: %q %v", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "listening "))
}

// `rpa gateway --nats URL`: replicas on a NATS server that is not theirs (a process of its
// own): buckets, the lease and the registry work there; a wrong password is a clear error that
// does not show it.
func TestSiteNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a nats-server process")
	}
	url := siteNATS(t)
	withCreds := strings.Replace(url, "nats://", "nats://site:site-pass@", 1)
	ctx := ctxT(t, 60*time.Second)
	var nodes []*cluster.Node
	for _, name := range []string{"g1", "g2"} {
		n, err := cluster.Start(ctx, cluster.Config{Name: name, NATSURL: withCreds, Logger: clustertest.Logger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(n.Close)
		nodes = append(nodes, n)
	}
	if nodes[0].Embedded() || nodes[0].Replicas() != 1 {
		t.Fatalf("embedded %v, replicas %d; want the site's single server, 1 copy", nodes[0].Embedded(), nodes[0].Replicas())
	}
	l, err := nodes[0].AcquireLease(ctx, "acct", "g1", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nodes[1].AcquireLease(ctx, "acct", "g2", 5*time.Second); !errors.Is(err, cluster.ErrLeaseHeld) {
		t.Fatalf("second holder on the site's NATS: %v", err)
	}
	_ = l.Release(ctx)
	reg1, err := nodes[0].StartRegistry(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reg1.Stop()
	changed := make(chan []string, 16)
	reg2, err := nodes[1].StartRegistry(ctx, func(ids []string) { changed <- ids })
	if err != nil {
		t.Fatal(err)
	}
	defer reg2.Stop()
	if err := reg1.Beat(ctx, cluster.ReplicaRecord{Name: "g1"}); err != nil {
		t.Fatal(err)
	}
	rev, err := reg1.Claim(ctx, cluster.DeviceRecord{DeviceID: "pc 1", Replica: "g1", Link: "l1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg1.Update(ctx, cluster.DeviceRecord{DeviceID: "pc 1", Replica: "g1", Link: "l1", Ready: true}, rev); err != nil {
		t.Fatal(err)
	}
	for {
		if p, ok := reg2.Lookup("pc 1"); ok && p.Replica == "g1" {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("g2 never saw the desktop g1 claimed")
		}
	}
	if _, err := reg2.Claim(ctx, cluster.DeviceRecord{DeviceID: "pc 1", Replica: "g2", Link: "l2"}); !errors.Is(err, cluster.ErrClaimed) {
		t.Fatalf("second claim: %v", err)
	}

	bad := strings.Replace(url, "nats://", "nats://site:wrong-pass@", 1)
	_, err = cluster.Start(ctx, cluster.Config{Name: "g3", NATSURL: bad})
	if err == nil || strings.Contains(err.Error(), "wrong-pass") || !strings.Contains(err.Error(), "--nats") {
		t.Fatalf("a wrong password: %v", err)
	}
}
