package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// BucketOptions shapes a key-value bucket made by Node.Bucket.
type BucketOptions struct {
	// TTL removes a key that was not written for this long (JetStream's MaxAge); watchers
	// are told (a delete marker). 0: keys stay.
	TTL time.Duration
	// KeyTTL allows a TTL per key (jetstream.KeyTTL on Create, WithMsgTTL on later writes).
	KeyTTL bool
	// History is how many values per key are kept (default 1).
	History uint8
	// MaxBytes bounds the bucket (default unbounded); a write over it fails.
	MaxBytes int64
	// Memory keeps the bucket in memory (it is lost when every replica restarts at once).
	Memory bool
	// Description is shown by NATS tools.
	Description string
	// Fresh sends every read to the bucket's stream leader, so a read after a write sees it (a
	// record changed by compare-and-set from several replicas needs that). By default a read
	// may be answered by any copy (JetStream's direct get), which can lag a little.
	Fresh bool
}

// markerTTL is how long a TTL bucket keeps the marker of an expired key (so that watchers
// that are a little behind still see the removal).
const markerTTL = time.Minute

// Bucket returns the key-value bucket name, creating it (or updating its settings) with
// Node.Replicas copies. While JetStream is not ready (a cluster electing its leader, or too few
// of its servers reachable) it retries until ctx ends, and then returns the last error.
func (n *Node) Bucket(ctx context.Context, name string, o BucketOptions) (jetstream.KeyValue, error) {
	n.mu.Lock()
	kv := n.buckets[name]
	n.mu.Unlock()
	if kv != nil {
		return kv, nil
	}
	cfg := jetstream.KeyValueConfig{
		Bucket: name, Description: o.Description, TTL: o.TTL, History: max(o.History, 1),
		MaxBytes: o.MaxBytes, Replicas: n.replicas, Storage: jetstream.FileStorage,
	}
	if o.Memory {
		cfg.Storage = jetstream.MemoryStorage
	}
	if o.TTL > 0 || o.KeyTTL {
		cfg.LimitMarkerTTL = markerTTL
	}
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		// An existing bucket is used as it is: updating it would need every replica up.
		if kv, err = n.js.KeyValue(ctx, name); !errors.Is(err, jetstream.ErrBucketNotFound) {
			return err
		}
		kv, err = n.js.CreateKeyValue(ctx, cfg)
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = n.js.KeyValue(ctx, name)
		}
		return err
	})
	if err == nil && o.Fresh {
		err = retry(ctx, func(ctx context.Context) error {
			s, err := n.js.Stream(ctx, "KV_"+name)
			if err == nil {
				if cfg := s.CachedInfo().Config; cfg.AllowDirect {
					cfg.AllowDirect = false
					_, err = n.js.UpdateStream(ctx, cfg)
				}
			}
			if err == nil {
				kv, err = n.js.KeyValue(ctx, name) // bound again: its reads go to the leader
			}
			if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrBucketNotFound) {
				// The bucket was found or made a moment ago: its stream's group, just formed
				// by another replica, is not answering yet.
				return notYet{err}
			}
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", name, err)
	}
	n.mu.Lock()
	if have := n.buckets[name]; have != nil {
		kv = have
	} else {
		n.buckets[name] = kv
	}
	n.mu.Unlock()
	return kv, nil
}

// notYet is an error that waiting fixes (Transient), whatever it wraps.
type notYet struct{ error }

func (e notYet) Unwrap() error { return e.error }

// retry calls f (each try bounded to 5 s) until it succeeds, fails for a reason waiting
// cannot fix, or ctx ends; the waits grow from 100 ms to 2 s.
func retry(ctx context.Context, f func(context.Context) error) error {
	wait := 100 * time.Millisecond
	for {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := f(tctx)
		cancel()
		if err == nil || !Transient(err) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(wait*2, 2*time.Second)
	}
}

// Transient reports whether err may go away by itself (JetStream not ready yet, no leader, a
// timeout, a lost connection), as opposed to a refusal such as a wrong revision.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	var wait notYet
	if errors.As(err, &wait) {
		return true
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode {
		case jetstream.JSErrCodeStreamWrongLastSequence, jetstream.JSErrCodeStreamNotFound,
			jetstream.JSErrCodeConsumerNotFound, jetstream.JSErrCodeMessageNotFound:
			return false
		}
		// 503 "JetStream system temporarily unavailable", insufficient resources while peers
		// are missing, no leader: all pass.
		// 10005 "no suitable peers for placement": too few servers up to hold every copy yet.
		return apiErr.Code == 503 || apiErr.Code == 500 || apiErr.Code == 408 || apiErr.Code == 0 ||
			apiErr.ErrorCode == 10005
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrNoHeartbeat) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabled) || isNoResponders(err) || isConnErr(err)
}

func isNoResponders(err error) bool {
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

func isConnErr(err error) bool {
	return errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrConnectionClosed) ||
		errors.Is(err, nats.ErrDisconnected) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, nats.ErrConnectionDraining)
}
