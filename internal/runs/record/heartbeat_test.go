package record_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// TestHeartbeatDuringLongStep: while a step runs long (nothing else is
// written), the recorder keeps events.jsonl's time fresh, so a run killed
// there is not recorded as having ended at its last event.
func TestHeartbeatDuringLongStep(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	path := filepath.Join(t.TempDir(), "long.flow")
	os.WriteFile(path, []byte("flow long \"a long step\"\n\nsleep 4s\n"), 0o600)
	f, ds := lang.LoadFile(path)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	rec, err := record.Start(record.Options{Store: st, Flow: f, Caller: runs.Caller{Kind: runs.CallerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, page := interp.Run(context.Background(), f, interp.Options{Browser: browser, Events: rec.Hook(nil)})
		rec.Finish(context.Background(), res, page)
	}()
	events := filepath.Join(rec.Dir(), "events.jsonl")
	start := rec.Run().Start
	fresh := false
	for !fresh {
		select {
		case <-done:
			t.Fatal("the run ended and events.jsonl was never touched after its last event during the long step")
		case <-time.After(100 * time.Millisecond):
		}
		fi, err1 := os.Stat(events)
		last, ok := lastT(events)
		if err1 == nil && ok && last < 3000 {
			// still inside the sleep: is the file newer than its last line?
			fresh = fi.ModTime().Sub(start) > time.Duration(last)*time.Millisecond+runs.HeartbeatEvery/2
		}
	}
	<-done
}

// lastT is the "t" of the last line of an events.jsonl.
func lastT(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var t int64
	ok := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev struct {
			T int64  `json:"t"`
			K string `json:"kind"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.K != "end" {
			t, ok = ev.T, true
		}
	}
	return t, ok
}
