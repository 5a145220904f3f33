package ui

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// The Schedules page: the flows that run on a schedule (`rpa schedule`,
// package schedule), with when each fires (its cron and zone, or its
// interval), its next time in this computer's local time, its state (paused,
// running, waiting and why), its last outcome with the run, and buttons to
// pause, resume or run one now. Which process fires the schedules (the
// holder of the run store's lease) is said above the table. Schedules are
// added and removed with the command line; the page never shows a secret
// (a schedule holds none: a secret param names an environment variable).

func init() {
	RegisterPage(Page{ID: "schedules", Path: "/schedules", Order: 35, Title: "nav.schedules"})
	RegisterText(map[string]Text{
		"nav.schedules":            {En: "Schedules", Zh: "计划任务"},
		"schedules.intro":          {En: "Flows that run on a schedule, added with rpa schedule add. Times are in this computer's time zone.", Zh: "按计划运行的流程，用 rpa schedule add 添加。时间为本机所在时区的时间。"},
		"schedules.none":           {En: "No schedule yet. Add one with: rpa schedule add NAME FLOW --cron \"0 8 * * 1-5\" --tz Asia/Shanghai", Zh: "还没有计划任务。添加方法：rpa schedule add 名称 流程 --cron \"0 8 * * 1-5\" --tz Asia/Shanghai"},
		"schedules.table":          {En: "Schedules", Zh: "计划任务"},
		"schedules.name":           {En: "Name", Zh: "名称"},
		"schedules.flow":           {En: "Flow", Zh: "流程"},
		"schedules.when":           {En: "When", Zh: "时间规则"},
		"schedules.next":           {En: "Next run", Zh: "下次运行"},
		"schedules.state":          {En: "State", Zh: "状态"},
		"schedules.last":           {En: "Last outcome", Zh: "上次结果"},
		"schedules.actions":        {En: "Actions", Zh: "操作"},
		"schedules.firedBy":        {En: "Fired by %s.", Zh: "由 %s 触发。"},
		"schedules.nobody":         {En: "No rpa process fires the schedules now: start rpa schedule daemon, or an rpa ui, serve or connect with its schedules on.", Zh: "当前没有 rpa 进程触发计划任务：请启动 rpa schedule daemon，或启用计划任务的 rpa ui、rpa serve 或 rpa connect。"},
		"schedules.every":          {En: "every %s", Zh: "每 %s"},
		"schedules.localZone":      {En: "%s (local time)", Zh: "%s（本地时间）"},
		"schedules.st.active":      {En: "active", Zh: "启用"},
		"schedules.st.paused":      {En: "paused", Zh: "已暂停"},
		"schedules.st.running":     {En: "running (attempt %d of %d)", Zh: "运行中（第 %d 次，共 %d 次）"},
		"schedules.st.orphan":      {En: "interrupted (attempt %d of %d): the process running it ended; the next rpa process to fire schedules ends it", Zh: "已中断（第 %d 次，共 %d 次）：运行它的进程已结束；下一个触发计划任务的 rpa 进程会结束它"},
		"schedules.st.waiting":     {En: "waiting: %s", Zh: "等待中：%s"},
		"schedules.fire.ok":        {En: "ok", Zh: "成功"},
		"schedules.fire.failed":    {En: "failed (%d attempts)", Zh: "失败（尝试 %d 次）"},
		"schedules.slot":           {En: "a free slot", Zh: "空闲的运行位置"},
		"schedules.lastRun":        {En: "Last run", Zh: "上次运行"},
		"schedules.fire.dropped":   {En: "not run", Zh: "未运行"},
		"schedules.fire.skipped":   {En: "missed", Zh: "错过"},
		"schedules.fire.cancelled": {En: "cancelled", Zh: "已取消"},
		"schedules.never":          {En: "not run yet", Zh: "尚未运行"},
		"schedules.notice":         {En: "the failure notice was not delivered: %s", Zh: "失败通知未送达：%s"},
		"schedules.pause":          {En: "Pause", Zh: "暂停"},
		"schedules.resume":         {En: "Resume", Zh: "恢复"},
		"schedules.runNow":         {En: "Run now", Zh: "立即运行"},
		"schedules.pauseOne":       {En: "Pause %s", Zh: "暂停 %s"},
		"schedules.resumeOne":      {En: "Resume %s", Zh: "恢复 %s"},
		"schedules.runNowOne":      {En: "Run %s now", Zh: "立即运行 %s"},
		"schedules.paused":         {En: "Paused %s.", Zh: "已暂停 %s。"},
		"schedules.resumed":        {En: "Resumed %s.", Zh: "已恢复 %s。"},
		"schedules.queued":         {En: "Queued a run of %s; it starts when its limits allow.", Zh: "已将 %s 排入运行队列；在限制允许时开始。"},
		"schedules.failed":         {En: "Not done: %s", Zh: "未完成：%s"},
		"schedules.unreadable":     {En: "The schedules cannot be read: %s", Zh: "无法读取计划任务：%s"},
	})
	Handle("GET /schedules", schedulesPage)
	Handle("POST /schedules/pause", schedulesAct)
	Handle("POST /schedules/resume", schedulesAct)
	Handle("POST /schedules/run-now", schedulesAct)
}

// scheduleRow is one row of the table.
type scheduleRow struct {
	Name, Flow, When, Next, State, StateClass string
	Paused                                    bool
	Last, LastClass, LastAt, LastError        string
	LastRun, Notice                           string
	Waiting                                   []string
}

func schedulesPage(s *Server, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var flash string
	for _, k := range []string{"paused", "resumed", "queued"} {
		if v := q.Get(k); v != "" {
			flash = s.T(r, "schedules."+k, v)
		}
	}
	s.renderSchedules(w, r, http.StatusOK, flash, "")
}

func (s *Server) renderSchedules(w http.ResponseWriter, r *http.Request, status int, flash, problem string) {
	data := map[string]any{"Flash": flash, "Problem": problem}
	st, err := s.runStore()
	var b *schedule.Board
	if err == nil {
		b, err = schedule.Load(st, time.Now())
	}
	if err != nil {
		data["Unreadable"] = s.T(r, "schedules.unreadable", err.Error())
		s.RenderStatus(w, r, status, "schedules", "nav.schedules", data)
		return
	}
	switch {
	case b.FiredBy != "":
		data["FiredBy"] = s.T(r, "schedules.firedBy", b.FiredBy)
	case len(b.Schedules) > 0:
		data["Nobody"] = s.T(r, "schedules.nobody")
	}
	var rows []scheduleRow
	for _, v := range b.Schedules {
		row := scheduleRow{Name: v.Name, Flow: v.Flow, Paused: v.Paused, State: s.T(r, "schedules.st.active")}
		switch {
		case v.Every != "":
			row.When = s.T(r, "schedules.every", v.Every)
		case v.TZ != "":
			row.When = v.Cron + " (" + v.TZ + ")"
		default:
			row.When = s.T(r, "schedules.localZone", v.Cron)
		}
		if v.Next != nil {
			row.Next = v.Next.Local().Format("2006-01-02 15:04")
		}
		if v.Paused {
			row.State, row.StateClass = s.T(r, "schedules.st.paused"), "muted"
		}
		for _, f := range v.Active {
			switch f.State {
			case runs.FireRunning:
				row.State, row.StateClass = s.T(r, "schedules.st.running", f.Attempt, f.MaxAttempts), "status-running"
				if f.Orphan {
					row.State, row.StateClass = s.T(r, "schedules.st.orphan", f.Attempt, f.MaxAttempts), "bad"
				}
			case runs.FireQueued:
				why := f.Waiting
				if why == "" {
					why = s.T(r, "schedules.slot")
				}
				row.Waiting = append(row.Waiting, s.T(r, "schedules.st.waiting", why))
			}
		}
		row.Last, row.LastClass = s.T(r, "schedules.never"), "muted"
		if f := v.Last; f != nil {
			at := f.Ended
			if at.IsZero() {
				at = f.Due
			}
			switch f.State {
			case runs.FireOK:
				row.Last, row.LastClass = s.T(r, "schedules.fire.ok"), "ok"
			case runs.FireFailed:
				row.Last, row.LastClass = s.T(r, "schedules.fire.failed", f.Attempt), "bad"
			default:
				row.Last, row.LastClass = s.T(r, "schedules.fire."+f.State), "bad"
			}
			row.LastAt = at.Local().Format("2006-01-02 15:04")
			if f.State != runs.FireOK {
				row.LastError = f.Error
			}
			row.LastRun = f.RunID
			if why, failed := strings.CutPrefix(f.Notify, "failed: "); failed {
				row.Notice = s.T(r, "schedules.notice", why)
			}
		}
		rows = append(rows, row)
	}
	data["Schedules"] = rows
	s.RenderStatus(w, r, status, "schedules", "nav.schedules", data)
}

// schedulesAct pauses, resumes or runs a schedule now, then tells this
// process's scheduler (Options.Schedules) so it looks at once.
func schedulesAct(s *Server, w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	name := r.FormValue("name")
	st, err := s.runStore()
	if err != nil {
		s.renderSchedules(w, r, http.StatusInternalServerError, "", s.T(r, "schedules.failed", err.Error()))
		return
	}
	now := time.Now()
	var done string
	switch r.URL.Path {
	case "/schedules/pause":
		err, done = schedule.Pause(st, name, now), "paused"
	case "/schedules/resume":
		err, done = schedule.Resume(st, name, now), "resumed"
	default:
		_, err = schedule.RunNow(st, name, now)
		done = "queued"
	}
	if err != nil {
		status := http.StatusUnprocessableEntity
		if errors.Is(err, runs.ErrNoSchedule) {
			// the store's error names the schedule whole: a 64 kB name came back
			status, err = http.StatusNotFound, fmt.Errorf("schedule %s: %w", schedule.ShowName(name), runs.ErrNoSchedule)
		}
		s.renderSchedules(w, r, status, "", s.T(r, "schedules.failed", err.Error()))
		return
	}
	if s.opts.Schedules != nil {
		s.opts.Schedules()
	}
	s.Logf("ui: schedules: %s %s", done, name)
	http.Redirect(w, r, "/schedules?"+url.Values{done: {name}}.Encode(), http.StatusSeeOther)
}
