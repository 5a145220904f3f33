package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/mcpserver"
)

// Signals of the long-running commands (issue 16): SIGTERM or SIGINT to
// `rpa serve --stdio` or `rpa connect` cancels the calls in flight as a
// client's cancel would, and their (cancelled) results are sent before
// the process exits; a second signal kills at once.

// stopReader passes r through until stop is called; from then on reads
// end with io.EOF (a read of r still blocked is left behind: the process
// is ending).
type stopReader struct {
	pr   *io.PipeReader
	pw   *io.PipeWriter
	once sync.Once
}

func newStopReader(r io.Reader) *stopReader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		_ = pw.CloseWithError(err) // nil: EOF for the reader
	}()
	return &stopReader{pr: pr, pw: pw}
}

func (s *stopReader) Read(p []byte) (int, error) { return s.pr.Read(p) }

// stop ends the input.
func (s *stopReader) stop() { s.once.Do(func() { _ = s.pw.Close() }) }

// answerGrace is how long `rpa connect` keeps its link after the
// cancelled calls returned, for their answers to be written up the link.
const answerGrace = 500 * time.Millisecond

// onSignal arranges that when ctx ends (the first SIGTERM/SIGINT), the
// calls in flight on srv are cancelled (srv.Close), then done runs (after
// the calls returned, or after 10 s). It returns the func that undoes it.
func onSignal(ctx context.Context, srv *mcpserver.Server, log *slog.Logger, done func()) func() bool {
	return context.AfterFunc(ctx, func() {
		log.Info("signal: cancelling the calls in flight, then exiting")
		closed := make(chan struct{})
		go func() { _ = srv.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			log.Warn("signal: calls still running after 10s; exiting anyway")
		}
		done()
	})
}
