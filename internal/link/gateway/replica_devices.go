package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rpa-dev/rpa/internal/link/cluster"
)

// DevicesBucket is the key-value bucket of device credentials in a cluster: Key(device id) →
// "sha256:HEX" of its token, hashes only, as in the device file. Each replica puts the lines of
// its own --devices file there (at start and whenever the file changes) and removes those it put
// when their line goes; every replica admits a desktop whose token is in its own file or in the
// bucket. So `rpa gateway --devices FILE --add-device ID` on one replica's file works on all;
// revoking a device means deleting its line from every file that holds it.
const DevicesBucket = "rpa_devices"

// deviceShare keeps DevicesBucket and this replica's view of it.
type deviceShare struct {
	r *replica

	mu     sync.Mutex
	byHash map[[sha256.Size]byte]string // token hash → device id (the whole bucket)
	mine   map[string]uint64            // device id → revision this replica put
	kv     jetstream.KeyValue
}

// owner returns the device id whose token this is, per the bucket.
func (s *deviceShare) owner(token string) (string, bool) {
	if token == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.byHash[sum]
	return id, ok
}

// start opens the bucket, watches it, and puts this replica's file in it (again every 2 s when
// the file changed) until ctx ends.
func (s *deviceShare) start(ctx context.Context) {
	kv, err := s.r.n.Bucket(ctx, DevicesBucket, cluster.BucketOptions{Description: "rpa gateway: device credentials (token hashes)"})
	if err != nil {
		s.r.log.Warn("device credentials stay per replica: their bucket is not available", "err", err)
		return
	}
	s.mu.Lock()
	s.kv, s.byHash, s.mine = kv, map[[sha256.Size]byte]string{}, map[string]uint64{}
	s.mu.Unlock()
	s.r.wg.Add(2)
	go func() {
		defer s.r.wg.Done()
		for ctx.Err() == nil {
			w, err := kv.WatchAll(ctx)
			if err != nil {
				sleepFor(ctx, time.Second)
				continue
			}
			table := map[[sha256.Size]byte]string{}
			initial := true
			for e := range w.Updates() {
				if e == nil {
					if initial {
						initial = false
						s.mu.Lock()
						s.byHash = table
						s.mu.Unlock()
					}
					continue
				}
				id, err := cluster.Unkey(e.Key())
				if err != nil {
					continue
				}
				s.mu.Lock()
				m := table
				if !initial {
					m = s.byHash
				}
				for h, have := range m {
					if have == id {
						delete(m, h)
					}
				}
				if e.Operation() == jetstream.KeyValuePut {
					if sum, ok := parseHash(string(e.Value())); ok {
						m[sum] = id
					}
				}
				s.mu.Unlock()
			}
			_ = w.Stop()
		}
	}()
	go func() {
		defer s.r.wg.Done()
		if s.r.g.opts.Devices == nil {
			return
		}
		last := ""
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			entries := s.r.g.opts.Devices.Entries()
			if sig := signature(entries); sig != last && s.publish(ctx, entries) {
				last = sig
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// publish puts the file's entries in the bucket and removes those this replica put whose line
// went; false when the bucket could not be written (tried again later).
func (s *deviceShare) publish(ctx context.Context, entries map[string]string) bool {
	ok := true
	for id, hash := range entries {
		if e, err := s.kv.Get(ctx, cluster.Key(id)); err == nil && string(e.Value()) == hash {
			continue
		}
		rev, err := s.kv.Put(ctx, cluster.Key(id), []byte(hash))
		if err != nil {
			ok = false
			continue
		}
		s.mu.Lock()
		s.mine[id] = rev
		s.mu.Unlock()
	}
	s.mu.Lock()
	var gone []string
	for id := range s.mine {
		if _, still := entries[id]; !still {
			gone = append(gone, id)
		}
	}
	s.mu.Unlock()
	for _, id := range gone {
		s.mu.Lock()
		rev := s.mine[id]
		s.mu.Unlock()
		if err := s.kv.Delete(ctx, cluster.Key(id), jetstream.LastRevision(rev)); err != nil && cluster.Transient(err) {
			ok = false
			continue
		}
		s.mu.Lock()
		delete(s.mine, id)
		s.mu.Unlock()
		s.r.log.Info("device removed from the cluster (its line left the device file)", "device", id)
	}
	return ok
}

func signature(entries map[string]string) string {
	var b strings.Builder
	keys := make([]string, 0, len(entries))
	for id := range entries {
		keys = append(keys, id)
	}
	sort.Strings(keys)
	for _, id := range keys {
		b.WriteString(id + " " + entries[id] + "\n")
	}
	return b.String()
}

func parseHash(v string) ([sha256.Size]byte, bool) {
	var sum [sha256.Size]byte
	h, ok := strings.CutPrefix(v, "sha256:")
	raw, err := hex.DecodeString(h)
	if !ok || err != nil || len(raw) != sha256.Size {
		return sum, false
	}
	copy(sum[:], raw)
	return sum, true
}

func sleepFor(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
