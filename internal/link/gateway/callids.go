package gateway

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/link/cluster"
)

// The request ids the gateway sends desktops are "gw-EPOCH-SEQ-MAC": EPOCH names the gateway
// process, SEQ counts its requests and MAC is an HMAC-SHA256 of "gw-EPOCH-SEQ" (its first 16
// bytes, hex) under a key only the gateway holds. An answer a desktop sends for an id nobody
// waits for is kept as a late answer (late.go) only when the id verifies: a desktop cannot make
// the gateway keep answers to calls it never sent (it could fill the late store or plant an
// answer an agent would take for its own).
//
// The key lives in the gateway's data folder (CallKeyFile; Options.DataDir), so ids an earlier
// process of this gateway issued still verify after a restart. In a cluster the replicas agree
// on one key through KeysBucket (the first replica to attach puts its own, atomically; the
// others take it and write it to their own file first), so an answer a desktop brings to
// another replica verifies there too. A replica keeps its earlier keys (at most maxCallKeys) for
// the ids it issued before. A replica just started signs (and verifies an id its keys do not)
// only once it agreed, waiting up to agreeWait after its start; past that (the cluster out of
// reach) it signs with its own key. So each one also puts its earlier keys in KeysBucket
// (CallIDsAlsoPrefix), and every replica verifies with those too (at most maxOtherKeys): an id
// a replica signed before the agreement verifies on every replica.

// CallKeyFile is the file, in Options.DataDir, of the keys that sign call ids: hex, one a line,
// the one that signs first (mode 0600).
const CallKeyFile = "call-ids.key"

// KeysBucket is the cluster's key-value bucket of the key that signs call ids (key CallIDsKey).
const KeysBucket = "rpa_keys"

// CallIDsKey is the key of the call-id signing key in KeysBucket.
const CallIDsKey = "call-ids"

// CallIDsAlsoPrefix starts the keys, in KeysBucket, of the keys replicas signed call ids with
// before they agreed on CallIDsKey: CallIDsAlsoPrefix + the first 16 hex digits of the key's
// SHA-256, the key (hex) as value.
const CallIDsAlsoPrefix = "call-ids.also."

// maxCallKeys bounds how many keys a gateway verifies with (the signing key and earlier ones).
const maxCallKeys = 4

// maxOtherKeys bounds how many of the other replicas' earlier keys (CallIDsAlsoPrefix) a replica
// verifies with (the latest ones: one is added each time a replica with a fresh data folder
// joins).
const maxOtherKeys = 64

// macLen is how many bytes of the HMAC an id carries (hex: twice as many characters).
const macLen = 16

// callKeys signs and verifies call ids.
type callKeys struct {
	path string // "" when there is no data folder: the key lives in memory only
	log  *slog.Logger

	mu     sync.RWMutex
	keys   [][]byte // keys[0] signs; every one verifies
	others [][]byte // other replicas' earlier keys (CallIDsAlsoPrefix): they verify too

	// In a cluster, signing and a failed verification wait (until waitUntil: agreeWait after
	// the start) for the replicas to agree on the key (agreed closed), so that what a replica
	// signs as it starts verifies everywhere at once; past it (the cluster out of reach) the
	// replica signs with its own key, which goes to the others once it can (CallIDsAlsoPrefix).
	agreed    chan struct{}
	agreeOnce sync.Once
	waitUntil time.Time // zero: no waiting (a gateway alone)
}

// agreeWait bounds, from a replica's start, how long signing waits for the cluster's key.
const agreeWait = 10 * time.Second

// markAgreed ends the waits for the agreement.
func (k *callKeys) markAgreed() { k.agreeOnce.Do(func() { close(k.agreed) }) }

// awaitAgreed waits for the agreement, until waitUntil.
func (k *callKeys) awaitAgreed() {
	select {
	case <-k.agreed:
		return
	default:
	}
	left := time.Until(k.waitUntil)
	if left <= 0 {
		return
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-k.agreed:
	case <-t.C:
	}
}

// loadCallKeys reads the keys in dir's CallKeyFile, making a key (and the file) when there is
// none. A file that cannot be read or written is reported and the key kept in memory: the
// gateway works, only answers to an earlier process's calls are not kept.
func loadCallKeys(dir string, log *slog.Logger) *callKeys {
	k := &callKeys{log: log, agreed: make(chan struct{})}
	if dir != "" {
		k.path = filepath.Join(dir, CallKeyFile)
		data, err := os.ReadFile(k.path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Warn("cannot read the key of call ids; answers to an earlier process's calls are not kept", "file", k.path, "err", err)
			k.path = ""
		}
		for _, line := range strings.Fields(string(data)) {
			if b, err := hex.DecodeString(line); err == nil && len(b) >= 16 && len(k.keys) < maxCallKeys {
				k.keys = append(k.keys, b)
			}
		}
		if len(data) > 0 && len(k.keys) == 0 {
			log.Warn("the key file of call ids holds no key; a new one replaces it", "file", k.path)
		}
	}
	if len(k.keys) == 0 {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		k.keys = [][]byte{key}
		k.save()
	}
	return k
}

// save writes the keys to the file (when there is one).
func (k *callKeys) save() {
	if k.path == "" {
		return
	}
	var b strings.Builder
	for _, key := range k.keys {
		b.WriteString(hex.EncodeToString(key))
		b.WriteByte('\n')
	}
	err := os.MkdirAll(filepath.Dir(k.path), 0o700)
	if err == nil {
		err = atomicfile.Write(k.path, []byte(b.String()), 0o600)
	}
	if err != nil {
		k.log.Warn("cannot write the key of call ids; answers to this process's calls are not kept after a restart", "file", k.path, "err", err)
	}
}

func mac(key []byte, body string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(body))
	return hex.EncodeToString(h.Sum(nil)[:macLen])
}

// sign returns body ("gw-EPOCH-SEQ") with its MAC.
func (k *callKeys) sign(body string) string {
	k.awaitAgreed()
	k.mu.RLock()
	defer k.mu.RUnlock()
	return body + "-" + mac(k.keys[0], body)
}

// valid reports whether id is a call id signed with one of the keys (in a cluster, one that
// does not verify may wait for the agreement on the key: see agreed).
func (k *callKeys) valid(id string) bool {
	body, sum, ok := cutLast(id, '-')
	if !ok || !strings.HasPrefix(body, "gw-") || len(sum) != 2*macLen {
		return false
	}
	if k.verifies(body, sum) {
		return true
	}
	select {
	case <-k.agreed:
		return false
	default:
	}
	k.awaitAgreed()
	return k.verifies(body, sum)
}

// verifies reports whether sum is body's MAC under one of the keys.
func (k *callKeys) verifies(body, sum string) bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, keys := range [][][]byte{k.keys, k.others} {
		for _, key := range keys {
			if hmac.Equal([]byte(mac(key, body)), []byte(sum)) {
				return true
			}
		}
	}
	return false
}

// learn adds another replica's earlier key to those that verify (the latest maxOtherKeys).
func (k *callKeys) learn(key []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if slices.ContainsFunc(k.keys, func(b []byte) bool { return bytes.Equal(b, key) }) ||
		slices.ContainsFunc(k.others, func(b []byte) bool { return bytes.Equal(b, key) }) {
		return
	}
	if len(k.others) >= maxOtherKeys {
		k.others = k.others[1:]
	}
	k.others = append(k.others, key)
}

// all returns the keys this gateway signs and verifies with (not the others').
func (k *callKeys) all() [][]byte {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return slices.Clone(k.keys)
}

func cutLast(s string, sep byte) (before, after string, found bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// adopt makes key the signing key (the cluster's), keeping the earlier ones for verifying, and
// writes them down.
func (k *callKeys) adopt(key []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if bytes.Equal(k.keys[0], key) {
		return
	}
	keys := [][]byte{key}
	for _, old := range k.keys {
		if !bytes.Equal(old, key) && len(keys) < maxCallKeys {
			keys = append(keys, old)
		}
	}
	k.keys = keys
	k.save()
}

// first returns the signing key.
func (k *callKeys) first() []byte {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.keys[0]
}

// shareCallKey agrees with the other replicas on the key that signs call ids: this replica's
// own if it is the first to attach (an atomic create), else the one already in KeysBucket.
// It retries while the bucket is not available, until ctx ends.
func (r *replica) shareCallKey(ctx context.Context) {
	for warned := false; ; warned = true {
		kv, err := r.agreeCallKey(ctx)
		if err == nil {
			r.wg.Add(1)
			go r.watchOtherKeys(ctx, kv)
			return
		}
		if ctx.Err() != nil {
			return
		}
		if !warned {
			r.log.Warn("the cluster's key of call ids is not available yet; answers to this replica's calls are kept only here meanwhile", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// agreeCallKey is one try of shareCallKey.
// The keys this replica may have signed with so far are put in the bucket first (the agreed one
// too, harmlessly), so they verify everywhere; the caller then watches the others' (it returns
// the bucket).
func (r *replica) agreeCallKey(ctx context.Context) (jetstream.KeyValue, error) {
	kv, err := r.n.Bucket(ctx, KeysBucket, cluster.BucketOptions{Description: "rpa gateway: the key that signs call ids"})
	if err != nil {
		return nil, err
	}
	for _, key := range r.g.ids.all() {
		if _, err := kv.Put(ctx, alsoKey(key), []byte(hex.EncodeToString(key))); err != nil {
			return nil, err
		}
	}
	for {
		_, err := kv.Create(ctx, CallIDsKey, []byte(hex.EncodeToString(r.g.ids.first())))
		if err == nil {
			r.log.Info("this replica's key signs the cluster's call ids")
			r.g.ids.markAgreed()
			r.g.stateChanged()
			return kv, nil
		} else if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, err
		}
		e, err := kv.Get(ctx, CallIDsKey)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // deleted in between: create it
		} else if err != nil {
			return nil, err
		}
		key, err := hex.DecodeString(string(e.Value()))
		if err != nil || len(key) < 16 {
			r.log.Warn("the cluster's key of call ids is malformed; this replica signs with its own", "err", err)
			r.g.ids.markAgreed()
			return kv, nil
		}
		r.g.ids.adopt(key)
		r.g.ids.markAgreed()
		r.g.stateChanged()
		return kv, nil
	}
}

// alsoKey is key's entry in KeysBucket among the keys replicas signed with before agreeing.
func alsoKey(key []byte) string {
	sum := sha256.Sum256(key)
	return CallIDsAlsoPrefix + hex.EncodeToString(sum[:8])
}

// watchOtherKeys learns every replica's earlier keys (CallIDsAlsoPrefix) until ctx ends,
// watching again when NATS ends a watch.
func (r *replica) watchOtherKeys(ctx context.Context, kv jetstream.KeyValue) {
	defer r.wg.Done()
	for ctx.Err() == nil {
		w, err := kv.Watch(ctx, CallIDsAlsoPrefix+"*")
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second): // NATS not answering: try again
			}
			continue
		}
		for e := range w.Updates() {
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			if key, err := hex.DecodeString(string(e.Value())); err == nil && len(key) >= 16 {
				r.g.ids.learn(key)
				r.g.stateChanged()
			}
		}
		_ = w.Stop()
	}
}
