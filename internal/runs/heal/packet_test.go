package heal_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/stdlib"
)

// recorded runs f under the run recorder (as rpa run does) with a heal
// hook, and returns the result and what the recorder finished with.
func recorded(t *testing.T, st *runs.Store, url string, mode heal.Mode) (*interp.Result, record.Finished) {
	t.Helper()
	f := loadFlow(t, "../../../testdata/heal/form.flow")
	args, err := f.CheckArgs(map[string]any{"url": url})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Start(record.Options{Store: st, Flow: f, Args: args, Caller: runs.Caller{Kind: runs.CallerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	h := heal.New(mode, st, rec.ID())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, page := interp.Run(stdlib.WithLocateHook(ctx, h), f, interp.Options{Args: args, Browser: browser, Host: core.Host{}, Events: rec.Hook(nil)})
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	fin := rec.Finish(ctx, res, page)
	if page != nil {
		_ = page.Close()
	}
	return res, *fin
}

// TestPacketAndReport: a removed element fails with a packet saying the
// element seems gone (suggest and auto); a healed step is in the result's
// log and the report; suggest puts the candidate in the packet.
func TestPacketAndReport(t *testing.T) {
	needBrowser(t)
	st := openStore(t)
	if res, _ := recorded(t, st, srv.URL+"/form.html", heal.Suggest); !res.Success {
		t.Fatalf("base run failed: %+v", res.Error)
	}
	res, fin := recorded(t, st, srv.URL+"/m07-element-removed.html", heal.Auto)
	if res.Success || fin.Packet == nil || fin.Packet.Heal == nil || !strings.Contains(fin.Packet.Heal.Reason, "gone") {
		t.Fatalf("removed element: success %v packet %+v", res.Success, fin.Packet)
	}
	res, fin = recorded(t, st, srv.URL+"/m01-id-renamed.html", heal.Suggest)
	if res.Success || fin.Packet == nil || fin.Packet.Heal == nil || fin.Packet.Heal.Status != "suggested" ||
		len(fin.Packet.Heal.Selectors) == 0 || fin.Packet.Heal.Selectors[0] != "#client" {
		t.Fatalf("suggest: success %v packet heal %+v", res.Success, fin.Packet.Heal)
	}
	if !strings.Contains(res.Error.Message, `heal suggests textbox "Customer"`) {
		t.Errorf("suggest: error %q does not name the candidate", res.Error.Message)
	}
	res, fin = recorded(t, st, srv.URL+"/m01-id-renamed.html", heal.Auto)
	if !res.Success {
		t.Fatalf("auto: %+v", res.Error)
	}
	logged := strings.Join(res.Log, "\n")
	if !strings.Contains(logged, `line 5: fill healed: textbox "Customer"`) || !strings.Contains(logged, `"#client"`) {
		t.Errorf("result log: %s", logged)
	}
	html, err := os.ReadFile(fin.Report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "fill healed") {
		t.Errorf("report does not say the step healed")
	}
}
