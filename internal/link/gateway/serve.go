package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Check reports options a gateway must not run with (`rpa gateway`): no
// Token (the gateway runs tools on every connected desktop), half of a
// TLS pair in so, or no desktop credentials (neither Devices nor
// SharedDeviceToken).
func (o Options) Check(so ServeOptions) error {
	if o.Token == "" {
		return errors.New("--token is required (or $RPA_GATEWAY_TOKEN): the gateway runs tools on every connected desktop")
	}
	if (so.CertFile == "") != (so.KeyFile == "") {
		return errTLSPair
	}
	if o.Devices == nil && !o.SharedDeviceToken {
		return errors.New("desktops need credentials: give each its own token with --devices FILE (create them with --add-device ID), or allow the shared --token with --shared-device-token")
	}
	// 0 stands for the tasks package's default (Options); only a negative bound or a ttl over
	// a maximum that is given is wrong.
	if o.MaxTasks < 0 || o.TaskTTL < 0 || o.TaskMaxTTL < 0 || (o.TaskMaxTTL > 0 && o.TaskTTL > o.TaskMaxTTL) {
		return fmt.Errorf("--max-tasks %d, --task-ttl %s, --task-max-ttl %s: want a positive number of tasks and positive durations, the ttl at most the maximum",
			o.MaxTasks, o.TaskTTL, o.TaskMaxTTL)
	}
	return nil
}

var errTLSPair = errors.New("--tls-cert and --tls-key go together")

// ServeOptions are how Serve listens.
type ServeOptions struct {
	// CertFile and KeyFile, both or neither, serve HTTPS/WSS (PEM files).
	CertFile, KeyFile string
	// Drain bounds the wait for calls in flight once ctx ended (Shutdown);
	// their answers then stay on the desktops.
	Drain time.Duration
}

// Serve serves g's Handler on ln until ctx ends: then g stops taking
// calls, lets the ones in flight finish (bounded by o.Drain), closes the
// links, leaves the cluster and shuts the HTTP server down, these last
// within one deadline (CloseWait) however the cluster answers, and returns
// once all that is done. A server closed that way is no error.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener, o ServeOptions) error {
	if (o.CertFile == "") != (o.KeyFile == "") {
		return errTLSPair
	}
	hs := &http.Server{Handler: g.Handler(), ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(stopped)
		g.stopServing(hs, o.Drain)
	})
	defer stop()
	var err error
	if o.CertFile != "" {
		err = hs.ServeTLS(ln, o.CertFile, o.KeyFile)
	} else {
		err = hs.Serve(ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		// hs.Serve returns as the shutdown begins: return once it is done (the answers
		// written, the replica gone), so the caller closes the cluster's node after it.
		<-stopped
		return nil
	}
	return err
}

// stopServing is Serve's end: the drain (bounded by drain), then the links, the cluster and the
// HTTP server (its requests' answers written; the agents' open event streams end with the
// gateway) within CloseWait.
func (g *Gateway) stopServing(hs *http.Server, drain time.Duration) {
	dctx, dcancel := context.WithTimeout(context.Background(), drain)
	err := g.drainCalls(dctx)
	dcancel()
	if err != nil {
		g.log.Warn("drain ended with calls in flight; their answers stay on the desktops", "err", err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), CloseWait)
	defer cancel()
	g.closeAll(cctx)
	if err := hs.Shutdown(cctx); err != nil {
		_ = hs.Close()
	}
}
