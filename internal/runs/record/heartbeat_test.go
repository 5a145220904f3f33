package record_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// TestHeartbeatDuringLongStep: while a step runs long (nothing else is
// written), the recorder keeps events.jsonl's time fresh, so a run killed
// there is not recorded as having ended at its last event. The step is an
// `ask` that waits until the test has seen the file touched after the
// step's event (the interval is injected: no sleep decides anything).
func TestHeartbeatDuringLongStep(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	path := filepath.Join(t.TempDir(), "long.flow")
	os.WriteFile(path, []byte("flow long \"a long step\"\n\na = ask \"wait\"\n"), 0o600)
	f, ds := lang.LoadFile(path)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	rec, err := record.Start(record.Options{Store: st, Flow: f, Caller: runs.Caller{Kind: runs.CallerCLI}, Heartbeat: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(rec.Dir(), "events.jsonl")
	asked, answer := make(chan time.Time), make(chan struct{})
	host := core.Host{Ask: func(ctx context.Context, q core.Question) (core.Answer, error) {
		fi, err := os.Stat(events) // the step's "started" event is written
		if err != nil {
			return core.Answer{}, err
		}
		asked <- fi.ModTime()
		<-answer
		return core.Answer{Status: core.AnswerAnswered, Text: "x"}, nil
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, page := interp.Run(context.Background(), f, interp.Options{Host: host, Events: rec.Hook(nil)})
		rec.Finish(context.Background(), res, page)
	}()
	written := <-asked
	deadline := time.Now().Add(30 * time.Second) // only catches a hang
	for {
		fi, err := os.Stat(events)
		if err == nil && fi.ModTime().After(written) {
			break // touched while the step runs and nothing is written
		}
		if time.Now().After(deadline) {
			t.Fatal("events.jsonl was never touched during the long step")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(answer)
	<-done
}
