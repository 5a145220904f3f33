package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
)

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// One cluster for the tests that do not kill a replica (starting three JetStream servers costs
// seconds).
var (
	sharedOnce  sync.Once
	sharedNodes []*cluster.Node
)

func shared(t *testing.T) []*cluster.Node {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	sharedOnce.Do(func() {
		// Not tied to t: TestMain closes it.
		ft := &fakeTB{TB: t}
		sharedNodes = clustertest.Start(ft, 3)
		sharedCleanup = ft.cleanups
	})
	if sharedNodes == nil {
		t.Fatal("the shared cluster did not start")
	}
	return sharedNodes
}

var sharedCleanup []func()

type fakeTB struct {
	testing.TB
	cleanups []func()
}

func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) TempDir() string {
	d, err := osMkdirTemp()
	if err != nil {
		f.TB.Fatal(err)
	}
	f.cleanups = append(f.cleanups, func() { osRemoveAll(d) })
	return d
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(sharedCleanup) - 1; i >= 0; i-- {
		sharedCleanup[i]()
	}
	osExit(code)
}

func TestBucketOnEveryReplica(t *testing.T) {
	nodes := shared(t)
	ctx := ctxT(t, 30*time.Second)
	kv1, err := nodes[0].Bucket(ctx, "t_bucket", cluster.BucketOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv1.Put(ctx, cluster.Key("office pc/7"), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	kv3, err := nodes[2].Bucket(ctx, "t_bucket", cluster.BucketOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv3.Get(ctx, cluster.Key("office pc/7"))
	if err != nil || string(e.Value()) != "hello" {
		t.Fatalf("replica 3 reads %v, %v; want hello", e, err)
	}
	if got, _ := cluster.Unkey(cluster.Key("office pc/7")); got != "office pc/7" {
		t.Fatalf("Unkey(Key(x)) = %q", got)
	}
	if nodes[0].Replicas() != 3 {
		t.Fatalf("replicas = %d, want 3", nodes[0].Replicas())
	}
}

func TestLeaseOneHolderAcrossReplicas(t *testing.T) {
	nodes := shared(t)
	ctx := ctxT(t, 30*time.Second)
	l, err := nodes[0].AcquireLease(ctx, "account/acme", "r1", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = nodes[1].AcquireLease(ctx, "account/acme", "r2", 2*time.Second)
	var held *cluster.LeaseHeldError
	if !errors.Is(err, cluster.ErrLeaseHeld) || !errors.As(err, &held) || held.Holder != "r1" {
		t.Fatalf("second acquire: %v, want held by r1", err)
	}
	rev := l.Revision()
	if err := l.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	if l.Revision() <= rev {
		t.Fatalf("revision %d after renew, want > %d", l.Revision(), rev)
	}
	if who, _, err := nodes[2].LeaseHolder(ctx, "account/acme"); err != nil || who != "r1" {
		t.Fatalf("LeaseHolder = %q, %v", who, err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	l2, err := nodes[1].AcquireLease(ctx, "account/acme", "r2", time.Second)
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if l2.Revision() <= l.Revision() {
		t.Fatalf("fencing: new holder's revision %d not above the old %d", l2.Revision(), l.Revision())
	}
	// The old holder's lease is gone: renewing it must fail, not steal it back.
	if err := l.Renew(ctx); !errors.Is(err, cluster.ErrLeaseLost) {
		t.Fatalf("renew of a released lease: %v, want ErrLeaseLost", err)
	}
	// l2 expires by itself (1 s TTL, not renewed): a third holder gets it.
	kv, _ := nodes[0].Bucket(ctx, cluster.LeaseBucket, cluster.BucketOptions{KeyTTL: true})
	w, err := kv.Watch(ctx, "l."+cluster.Key("account/acme"), jetstream.UpdatesOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for e := range w.Updates() {
		if e != nil && e.Operation() != jetstream.KeyValuePut {
			break // the expiry marker
		}
	}
	if _, err := nodes[2].AcquireLease(ctx, "account/acme", "r3", time.Second); err != nil {
		t.Fatalf("acquire after expiry: %v", err)
	}
	if err := l2.Renew(ctx); !errors.Is(err, cluster.ErrLeaseLost) {
		t.Fatalf("renew of an expired lease taken over: %v, want ErrLeaseLost", err)
	}
}

func TestQueueEachJobOnce(t *testing.T) {
	nodes := shared(t)
	ctx := ctxT(t, 60*time.Second)
	const jobs = 30
	var mu sync.Mutex
	seen := map[string]int{}
	failedOnce := map[string]bool{}
	all := make(chan struct{})
	var done atomic.Int32
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, nd := range nodes {
		q, err := nd.Queue(ctx, "t_once", cluster.QueueOptions{AckWait: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = q.Work(wctx, func(_ context.Context, j cluster.Job) error {
				mu.Lock()
				defer mu.Unlock()
				// Job 7 fails its first try: it must come back, and count once.
				if j.ID == "job-7" && !failedOnce[j.ID] {
					failedOnce[j.ID] = true
					return errors.New("first try fails")
				}
				seen[j.ID]++
				if done.Add(1) == jobs {
					close(all)
				}
				return nil
			})
		}()
	}
	q, err := nodes[0].Queue(ctx, "t_once", cluster.QueueOptions{AckWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		id := "job-" + itoa(i)
		// Every replica adds every job (as every replica's scheduler would): one runs.
		for _, nd := range nodes {
			qn, err := nd.Queue(ctx, "t_once", cluster.QueueOptions{AckWait: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			dup, err := qn.Add(ctx, id, []byte(id))
			if err != nil {
				t.Fatal(err)
			}
			if nd != nodes[0] && !dup {
				t.Errorf("%s added again on %s was not a duplicate", id, nd.Name())
			}
		}
	}
	_ = q
	select {
	case <-all:
	case <-ctx.Done():
		t.Fatalf("only %d of %d jobs handled", done.Load(), jobs)
	}
	stop()
	wg.Wait()
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s handled %d times", id, n)
		}
	}
	if !failedOnce["job-7"] {
		t.Error("job-7 never failed its first try")
	}
}

func TestBlobOverMaxPayload(t *testing.T) {
	nodes := shared(t)
	ctx := ctxT(t, 30*time.Second)
	big := bytes.Repeat([]byte("screenshot"), 300_000) // 3 MB > the 1 MB NATS payload
	if nodes[0].Fits(len(big)) {
		t.Fatalf("a %d-byte payload fits one message?", len(big))
	}
	name, err := nodes[0].PutBlob(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nodes[2].Blob(ctx, name, true)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("blob read on another replica: %d bytes, %v", len(got), err)
	}
	if _, err := nodes[1].Blob(ctx, name, false); err == nil {
		t.Fatal("a blob read with del is still there")
	}
}

// Three replicas survive the loss of one: the bucket stays writable on the two others.
func TestSurvivesLossOfOneReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	nodes := clustertest.Start(t, 3)
	ctx := ctxT(t, 60*time.Second)
	kv, err := nodes[0].Bucket(ctx, "t_loss", cluster.BucketOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("before")); err != nil {
		t.Fatal(err)
	}
	nodes[0].Kill()
	kv2, err := nodes[1].Bucket(ctx, "t_loss", cluster.BucketOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var e jetstream.KeyValueEntry
	// The stream may be electing a new leader: Get retries through it.
	for {
		e, err = kv2.Get(ctx, "k")
		if err == nil || !cluster.Transient(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil || string(e.Value()) != "before" {
		t.Fatalf("after losing r1: %v, %v", e, err)
	}
	for {
		_, err = kv2.Put(ctx, "k", []byte("after"))
		if err == nil || !cluster.Transient(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("write after losing r1: %v", err)
	}
}

func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		cfg  cluster.Config
		want string
	}{
		{cluster.Config{ClusterListen: "127.0.0.1:6222", NATSURL: "nats://x:4222"}, "exclude each other"},
		{cluster.Config{Peers: []string{"a:1"}}, "--cluster-peers needs --cluster-listen"},
		{cluster.Config{ClusterListen: "nohostport"}, "--cluster-listen"},
		{cluster.Config{ClusterListen: "127.0.0.1:6222", Peers: []string{"x"}}, "--cluster-peers"},
		{cluster.Config{NATSURL: "http://x:4222"}, "want nats://"},
		{cluster.Config{NATSURL: "nats://u:secretpw@"}, "nats://***@"},
		{cluster.Config{ClusterListen: "127.0.0.1:0", Name: "a.b"}, "replica name"},
		{cluster.Config{NATSURL: "nats://h:4222", TLS: cluster.TLSFiles{Cert: "c.pem"}}, "go together"},
	} {
		err := tc.cfg.Check()
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
		if err != nil && contains(err.Error(), "secretpw") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	if err := (cluster.Config{ClusterListen: "127.0.0.1:0", Peers: []string{"127.0.0.1:1"}}).Check(); err != nil {
		t.Error(err)
	}
	if cluster.RouteSecret("tok") == cluster.RouteSecret("tok2") || cluster.RouteSecret("") != "" || contains(cluster.RouteSecret("tok"), "tok") {
		t.Error("RouteSecret")
	}
}

// TestQueueWorkers: with Workers 2, one Work call handles a second job while the first waits
// (the first job returns only once the second has started).
func TestQueueWorkers(t *testing.T) {
	nodes := shared(t)
	ctx := ctxT(t, 60*time.Second)
	q, err := nodes[0].Queue(ctx, "t_workers", cluster.QueueOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan struct{})
	ended := make(chan string, 2)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = q.Work(wctx, func(jctx context.Context, j cluster.Job) error {
			if j.ID == "first" {
				select {
				case <-second:
				case <-jctx.Done():
					return jctx.Err()
				}
			} else {
				close(second)
			}
			ended <- j.ID
			return nil
		})
	}()
	for _, id := range []string{"first", "second"} {
		if _, err := q.Add(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		select {
		case <-ended:
		case <-ctx.Done():
			t.Fatal("the second job did not run while the first waited")
		}
	}
	stop()
	<-done
}

// TestTwoReplicasWarned: a replica started with one peer (a cluster of two) logs that two
// replicas survive the loss of none; with two peers it does not.
func TestTwoReplicasWarned(t *testing.T) {
	for _, tc := range []struct {
		n    int
		warn bool
	}{{2, true}, {3, false}} {
		var log lockedBuffer
		cfgs := clustertest.Configs(t, tc.n, t.TempDir(), "s", slog.New(slog.NewTextHandler(&log, nil)))
		clustertest.StartConfigsNoWait(t, cfgs[:1])[0].Close()
		if got := contains(log.String(), cluster.TwoReplicasWarning); got != tc.warn {
			t.Errorf("%d replicas: warned %v, want %v; log:\n%s", tc.n, got, tc.warn, log.String())
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for the node's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
