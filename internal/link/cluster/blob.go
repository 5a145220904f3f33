package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// BlobBucket is the JetStream object store of payloads too large for one NATS message (a
// tools/call result with screenshots, a large late answer). Blobs are removed by their reader,
// else after BlobTTL; they are kept in memory (a call's arguments may hold secrets: never on
// disk).
const BlobBucket = "rpa_blobs"

// BlobTTL is how long an unread blob is kept.
const BlobTTL = time.Hour

// blobHeadroom is left below the server's max payload for headers and envelopes.
const blobHeadroom = 8 << 10

// Fits reports whether a payload of size bytes fits one NATS message of this connection
// (with room for headers); a larger one goes through PutBlob.
func (n *Node) Fits(size int) bool { return int64(size) <= n.nc.MaxPayload()-blobHeadroom }

func (n *Node) objectStore(ctx context.Context) (jetstream.ObjectStore, error) {
	n.mu.Lock()
	os := n.objects
	n.mu.Unlock()
	if os != nil {
		return os, nil
	}
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		if os, err = n.js.ObjectStore(ctx, BlobBucket); !errors.Is(err, jetstream.ErrBucketNotFound) {
			return err
		}
		os, err = n.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket: BlobBucket, Description: "rpa payloads over the NATS message limit", TTL: BlobTTL,
			Replicas: n.replicas, Storage: jetstream.MemoryStorage,
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", BlobBucket, err)
	}
	n.mu.Lock()
	n.objects = os
	n.mu.Unlock()
	return os, nil
}

// PutBlob stores data (any size; the object store chunks it) and returns its name.
func (n *Node) PutBlob(ctx context.Context, data []byte) (string, error) {
	os, err := n.objectStore(ctx)
	if err != nil {
		return "", err
	}
	name := "b-" + rand.Text()
	if _, err := os.PutBytes(ctx, name, data); err != nil {
		return "", fmt.Errorf("blob: %w", err)
	}
	return name, nil
}

// Blob reads the blob name; with del it is removed once read.
func (n *Node) Blob(ctx context.Context, name string, del bool) ([]byte, error) {
	os, err := n.objectStore(ctx)
	if err != nil {
		return nil, err
	}
	b, err := os.GetBytes(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", name, err)
	}
	if del {
		_ = os.Delete(ctx, name)
	}
	return b, nil
}

// HeaderBlob names, on a message whose payload was too large for NATS, the blob holding it.
const HeaderBlob = "Rpa-Blob"

// Msg builds a message to subj carrying data: in the message when it fits, else in a blob named
// by HeaderBlob (the reader removes it). hdr may be nil.
func (n *Node) Msg(ctx context.Context, subj string, hdr nats.Header, data []byte) (*nats.Msg, error) {
	m := nats.NewMsg(subj)
	for k, v := range hdr {
		m.Header[k] = v
	}
	if n.Fits(len(data)) {
		m.Data = data
		return m, nil
	}
	name, err := n.PutBlob(ctx, data)
	if err != nil {
		return nil, err
	}
	m.Header.Set(HeaderBlob, name)
	return m, nil
}

// Data is the payload of a message built by Msg (read from, and removed with, its blob).
func (n *Node) Data(ctx context.Context, m *nats.Msg) ([]byte, error) {
	if name := m.Header.Get(HeaderBlob); name != "" {
		return n.Blob(ctx, name, true)
	}
	return m.Data, nil
}
