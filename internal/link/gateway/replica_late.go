package gateway

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rpa-dev/rpa/internal/link/cluster"
)

// LateBucket is the key-value bucket of late answers in a cluster (LateResult by Key(id), kept
// LateTTL): an answer kept on one replica is a resource on every replica.
const LateBucket = "rpa_late"

// lateShare puts this replica's late answers in LateBucket and loads the others'.
type lateShare struct {
	r  *replica
	kv atomic.Pointer[jetstream.KeyValue]
}

// lateRef is a late answer too large for one value: its blob.
type lateRef struct {
	Blob string `json:"blob"`
}

// start opens the bucket and loads every answer in it, then each new one, until ctx ends.
func (l *lateShare) start(ctx context.Context) {
	g := l.r.g
	kv, err := l.r.n.Bucket(ctx, LateBucket, cluster.BucketOptions{TTL: g.opts.LateTTL, MaxBytes: 256 << 20, Description: "rpa gateway: answers nobody waited for"})
	if err != nil {
		l.r.log.Warn("late answers stay on this replica: their bucket is not available", "err", err)
		return
	}
	l.kv.Store(&kv)
	l.r.wg.Add(1)
	go func() {
		defer l.r.wg.Done()
		for ctx.Err() == nil {
			w, err := kv.WatchAll(ctx)
			if err != nil {
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
				continue
			}
			for e := range w.Updates() {
				if e != nil && e.Operation() == jetstream.KeyValuePut {
					l.load(ctx, e.Value())
				}
			}
			_ = w.Stop() // the watcher ended (NATS could not recreate it): start it again
		}
	}()
}

// load keeps a late answer of the bucket here (unless it already is).
func (l *lateShare) load(ctx context.Context, data []byte) {
	var ref lateRef
	if json.Unmarshal(data, &ref) == nil && ref.Blob != "" {
		var err error
		if data, err = l.r.n.Blob(ctx, ref.Blob, false); err != nil {
			return
		}
	}
	var rec LateResult
	if json.Unmarshal(data, &rec) != nil || rec.ID == "" {
		return
	}
	if _, have := l.r.g.late.get(rec.ID); !have {
		l.r.g.storeLate(&rec, false)
	}
}

// put shares a late answer kept here.
func (l *lateShare) put(rec *LateResult) {
	kvp := l.kv.Load()
	if kvp == nil {
		return
	}
	ctx, cancel := context.WithTimeout(l.r.life, 30*time.Second)
	defer cancel()
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if !l.r.n.Fits(len(data)) {
		name, err := l.r.n.PutBlob(ctx, data)
		if err != nil {
			l.r.log.Warn("a late answer stays on this replica", "id", rec.ID, "err", err)
			return
		}
		data, _ = json.Marshal(lateRef{Blob: name})
	}
	if _, err := (*kvp).Put(ctx, cluster.Key(rec.ID), data); err != nil {
		l.r.log.Warn("a late answer stays on this replica", "id", rec.ID, "err", err)
	}
}
