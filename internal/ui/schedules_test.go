package ui

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

const meterFlow = "flow meter \"read the meters\"\nparam region: string = \"110000\"\n\nopen \"http://127.0.0.1:9/q?r={{ region }}\"\n"

// TestSchedulesPage: the page lists the schedules with when they fire, the
// next time in local time, their state (paused, waiting and why) and last
// outcome with its run; says which process fires them, or that none does;
// pauses, resumes and queues a run now, telling this process's scheduler;
// in English and Chinese.
func TestSchedulesPage(t *testing.T) {
	c := newConsole(t, map[string]string{"meter.flow": meterFlow})
	var kicks atomic.Int32
	c.ui.opts.Schedules = func() { kicks.Add(1) }
	st, err := runs.OpenHome(c.home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	add := func(d schedule.Def) {
		t.Helper()
		if err := schedule.Prepare(&d, "meter", c.dir, now); err != nil {
			t.Fatal(err)
		}
		if _, err := schedule.Add(st, &d, now); err != nil {
			t.Fatal(err)
		}
	}
	add(schedule.Def{Name: "meter-am", Cron: "0 8 * * 1-5", TZ: "Asia/Shanghai", Limits: runs.Limits{Site: 1}})
	add(schedule.Def{Name: "hourly", Every: schedule.Duration(time.Hour), Args: map[string]string{"region": "330100"}})
	add(schedule.Def{Name: "nightly", Cron: "30 2 * * *", Retries: 2, Notify: "https://hooks.example.com/x"})
	if err := schedule.Pause(st, "hourly", now); err != nil {
		t.Fatal(err)
	}
	// nightly's last fire failed after three attempts and its notice did not go out.
	id, _ := schedule.RunNow(st, "nightly", now)
	h := runs.Me("test", "rpa schedule daemon")
	var last string
	for i := 0; i < 3; i++ {
		if c, err := st.ClaimFire(id, h, now); err != nil || !c.Started {
			t.Fatalf("claim %d: %+v %v", i, c, err)
		}
		r := &runs.Run{Flow: "meter", Caller: runs.Caller{Kind: runs.CallerSchedule}, Schedule: "nightly", RetryOf: last}
		st.Begin(r)
		st.Finish(r.ID, runs.Outcome{Status: runs.StatusFailed, ErrorKind: "timeout", ErrorLine: 4, ErrorMessage: "open: timed out"})
		last = r.ID
		e := runs.FireEnd{State: runs.FireQueued, RunID: r.ID, Error: "line 4: timeout: open: timed out"}
		if i == 2 {
			e.State, e.Notify = runs.FireFailed, true
		}
		st.EndFire(id, h, e, now)
	}
	st.PendingNotices(h)
	st.NoticeDone(id, "failed: webhook https://hooks.example.com/x: answered 503 Service Unavailable")

	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/schedules?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "No rpa process fires the schedules now")
	el(t, pg, "link", last)
	uibCheck(t, c, pg, "schedules_list")

	// A scheduler holds the lease: the page says which process it is.
	if ok, _, _ := st.TakeLease(schedule.LeaseName, h, time.Now(), time.Minute); !ok {
		t.Fatal("no lease")
	}
	click(t, pg, "button", "Run meter-am now")
	waitText(t, pg, "Queued a run of meter-am; it starts when its limits allow.")
	waitText(t, pg, "Fired by rpa schedule daemon (pid")
	waitText(t, pg, "waiting: a free slot")
	uibCheck(t, c, pg, "schedules_queued")
	click(t, pg, "button", "Pause meter-am")
	waitText(t, pg, "Paused meter-am.")
	click(t, pg, "button", "Resume hourly")
	waitText(t, pg, "Resumed hourly.")
	if r, _ := st.Schedule("meter-am"); !r.Paused {
		t.Error("meter-am is not paused")
	}
	if r, _ := st.Schedule("hourly"); r.Paused || r.Next.IsZero() {
		t.Errorf("hourly after resume: %+v", r)
	}
	if fs, _ := st.ActiveFires(); len(fs) != 1 || fs[0].Schedule != "meter-am" || fs[0].Kind != runs.FireManual {
		t.Errorf("queued: %+v", fs)
	}
	if kicks.Load() != 3 {
		t.Errorf("the scheduler was told %d times, want 3", kicks.Load())
	}
	click(t, pg, "button", "中文")
	waitText(t, pg, "按计划运行的流程")
	el(t, pg, "button", "恢复 meter-am")
	uibCheck(t, c, pg, "schedules_zh")
	click(t, pg, "button", "English")
	waitText(t, pg, "Flows that run on a schedule")

	// An unknown schedule is a 404 with why.
	req, _ := http.NewRequest("POST", c.ts.URL+"/schedules/pause", strings.NewReader("name=nope"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(TokenHeader, c.ui.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), "Not done: schedule nope: no such schedule") {
		t.Errorf("pause of an unknown schedule: %d %s", resp.StatusCode, b)
	}
	// A long name is named by its length (lang.Echo), not sent back.
	long := strings.Repeat("n", 60_000)
	req, _ = http.NewRequest("POST", c.ts.URL+"/schedules/resume", strings.NewReader("name="+long))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(TokenHeader, c.ui.Token())
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || strings.Contains(string(b), long[:300]) || !strings.Contains(string(b), "a text too long to show (60000 bytes): no such schedule") {
		t.Errorf("resume of a long name: %d, %d bytes", resp.StatusCode, len(b))
	}
	if zh := c.getLang(t, "/schedules", "zh-CN,zh;q=0.9"); !strings.Contains(zh, "计划任务") || !strings.Contains(zh, "失败（尝试 3 次）") {
		t.Error("the page in Chinese lacks its texts")
	}

	// A console with no schedule says how to add one.
	c2 := newConsole(t, nil)
	if err := pg.Navigate(step(t), c2.ts.URL+"/schedules?t="+c2.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "No schedule yet.")
	uibCheck(t, c2, pg, "schedules_empty")
}
