package gateway

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/serve/flowserver"
)

// TestClusterAccountLease: one run per account across the desktops of a gateway cluster (issue
// 28). Desktops A (on r1) and B (on r2), each with its own machine's leases: while a run on A
// holds account portal/admin, B's run is refused naming A's run and device, or waits and gets it
// once A releases it; a lease dies with its desktop's link; another account is free meanwhile.
func TestClusterAccountLease(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	a := rs.deskOn(t, 0, "A", deskServer("A", nil))
	b := rs.deskOn(t, 1, "B", deskServer("B", nil))
	rs.waitLinked(t, map[string]string{"A": "r1", "B": "r2"})
	la := &flowserver.LinkLeaser{Local: lease.NewLocal(t.TempDir())}
	la.SetClient(a.client)
	lb := &flowserver.LinkLeaser{Local: lease.NewLocal(t.TempDir())}
	lb.SetClient(b.client)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // only a hang
	defer cancel()

	held, err := la.Acquire(ctx, lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "run-a"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lb.Acquire(ctx, lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "run-b"}})
	var busy *lease.BusyError
	if !errors.As(err, &busy) || busy.Holder.RunID != "run-a" || busy.Holder.Host != "A" {
		t.Fatalf("a second desktop's run of the same account: %v (%+v), want busy naming run-a on A", err, busy)
	}
	other, err := lb.Acquire(ctx, lease.Request{Account: "portal/other", Holder: lease.Holder{RunID: "run-b"}})
	if err != nil {
		t.Fatalf("another account: %v", err)
	}
	other.Release()

	// B waits; A's release gives it the account.
	got := make(chan error, 1)
	go func() {
		l, err := lb.Acquire(ctx, lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "run-b"}, Wait: time.Minute})
		if err == nil {
			_, err = la.Acquire(ctx, lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "run-a2"}})
			if !errors.As(err, &busy) || busy.Holder.Host != "B" {
				err = errors.New("while B held it, A's next run got: " + errString(err))
			} else {
				err = nil
			}
			l.Release()
		}
		got <- err
	}()
	held.Release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}

	// A's link ends while it holds the account (its process was killed): B gets it.
	if _, err := la.Acquire(ctx, lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "run-a3"}}); err != nil {
		t.Fatal(err)
	}
	a.stop()
	l, err := lb.Acquire(ctx, lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "run-b2"}, Wait: time.Minute})
	if err != nil {
		t.Fatalf("after A's link ended: %v", err)
	}
	l.Release()
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
