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
// its own --devices file there (at start and whenever the file changes); every replica admits a
// desktop whose token is in its own file or in the bucket. So `rpa gateway --devices FILE
// --add-device ID` on one replica's file works on all. A line that leaves a replica's file (the
// device revoked there) leaves a tombstone, Key("revoked sha256:HEX") → the device id: every
// replica then refuses that token, even from its own file (whose line it does not put back), and
// closes its live links at once (close 4001), so revoking a device on one replica revokes it on
// all. A new token for the same device id (--add-device again) is a new hash, not revoked.
const DevicesBucket = "rpa_devices"

// revokedPrefix starts a tombstone in DevicesBucket.
const revokedPrefix = "revoked "

// deviceShare keeps DevicesBucket and this replica's view of it.
type deviceShare struct {
	r *replica

	mu      sync.Mutex
	byHash  map[[sha256.Size]byte]string // token hash → device id (the whole bucket)
	revoked map[[sha256.Size]byte]string // token hash → device id, revoked on some replica
	prev    map[string]string            // this replica's file as last put: device id → hash
	warned  map[string]bool              // tombstoned lines of this replica's file, said once
	kv      jetstream.KeyValue
}

// isRevoked reports whether the token hash was revoked on some replica.
func (s *deviceShare) isRevoked(sum [sha256.Size]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.revoked[sum]
	return ok
}

// admits reports whether the bucket gives device id the token hash.
func (s *deviceShare) admits(sum [sha256.Size]byte, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byHash[sum] == id
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
	s.kv, s.byHash = kv, map[[sha256.Size]byte]string{}
	if s.revoked == nil {
		s.revoked = map[[sha256.Size]byte]string{}
	}
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
						s.r.g.stateChanged()
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
				if h, tomb := strings.CutPrefix(id, revokedPrefix); tomb {
					if sum, ok := parseHash(h); ok && e.Operation() == jetstream.KeyValuePut {
						s.revoked[sum] = string(e.Value())
					}
				} else if e.Operation() == jetstream.KeyValuePut {
					if sum, ok := parseHash(string(e.Value())); ok {
						m[sum] = id
					}
				}
				s.mu.Unlock()
				if !initial {
					s.r.g.stateChanged()
				}
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

// publish puts the file's entries in the bucket (but not a line revoked elsewhere: its token
// stays refused) and a tombstone for each line that left the file since the last publish; false
// when the bucket could not be written (tried again later).
func (s *deviceShare) publish(ctx context.Context, entries map[string]string) bool {
	ok := true
	for id, hash := range entries {
		if _, err := s.kv.Get(ctx, cluster.Key(revokedPrefix+hash)); err == nil {
			s.mu.Lock()
			said := s.warned[id]
			if s.warned == nil {
				s.warned = map[string]bool{}
			}
			s.warned[id] = true
			s.mu.Unlock()
			if !said {
				s.r.log.Warn("a device in this replica's device file was revoked on another replica: its token is refused here too; delete its line", "device", id)
			}
			continue
		}
		if e, err := s.kv.Get(ctx, cluster.Key(id)); err == nil && string(e.Value()) == hash {
			continue
		}
		if _, err := s.kv.Put(ctx, cluster.Key(id), []byte(hash)); err != nil {
			ok = false
		}
	}
	s.mu.Lock()
	prev := s.prev
	s.mu.Unlock()
	for id, hash := range prev {
		if entries[id] == hash {
			continue
		}
		// Its line left the file (or its token changed): the old token is revoked everywhere.
		if _, err := s.kv.Put(ctx, cluster.Key(revokedPrefix+hash), []byte(id)); err != nil {
			ok = false
			continue
		}
		if e, err := s.kv.Get(ctx, cluster.Key(id)); err == nil && string(e.Value()) == hash {
			_ = s.kv.Delete(ctx, cluster.Key(id), jetstream.LastRevision(e.Revision()))
		}
		if sum, parsed := parseHash(hash); parsed {
			s.mu.Lock()
			s.revoked[sum] = id
			s.mu.Unlock()
		}
		s.r.log.Info("device revoked in the cluster (its line left the device file)", "device", id)
	}
	if ok {
		s.mu.Lock()
		s.prev = entries
		s.mu.Unlock()
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
