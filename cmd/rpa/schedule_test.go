package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestScheduleCommand drives rpa schedule add, list, show, pause, resume,
// rm and run-now in-process, with --json, and the exit codes of bad input.
func TestScheduleCommand(t *testing.T) {
	home := vaultEnv(t, "schedule pass phrase")
	for _, a := range []string{"portal/admin", "ops/backup"} {
		if code, _, errOut := vaultIn(t, `{"username":"u","password":"p"}`, "set", a); code != 0 {
			t.Fatalf("vault set %s: %s", a, errOut)
		}
	}
	dir := filepath.Join(home, "flows")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "meter.flow"), []byte("flow meter \"read the meters\"\nparam region: string\nparam password: secret\nparam account: credential \"the portal account\"\n\nopen \"http://127.0.0.1:9/{{ region }}\"\n"), 0o644)
	run := func(args ...string) (string, string, int) {
		var o, e bytes.Buffer
		code := runSchedule(context.Background(), args, &o, &e)
		return o.String(), e.String(), code
	}
	out, errs, code := run("add", "meter-am", "meter", "--cron", "0 8 * * 1-5", "--tz", "Asia/Shanghai", "--arg", "region=330100",
		"--secret-env", "password=RPA_TEST_METER_PW", "--retries", "3", "--backoff", "1m", "--timeout", "10m",
		"--max-concurrent", "site=1", "--max-concurrent", "2", "--account", "portal/admin", "--missed", "once", "--json")
	if code != 0 {
		t.Fatalf("add (%d): %s", code, errs)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("add --json: %v\n%s", err, out)
	}
	if v["name"] != "meter-am" || v["flow"] != "meter" || v["cron"] != "0 8 * * 1-5" || v["tz"] != "Asia/Shanghai" || v["retries"] != 3.0 ||
		v["backoff"] != "1m" || v["timeout"] != "10m" || v["missed"] != "once" || v["account"] != "portal/admin" || v["next"] == nil ||
		v["limits"].(map[string]any)["site"] != 1.0 || v["limits"].(map[string]any)["flow"] != 2.0 ||
		v["secretEnv"].(map[string]any)["password"] != "RPA_TEST_METER_PW" {
		t.Fatalf("add --json: %s", out)
	}
	if !strings.Contains(errs, "RPA_TEST_METER_PW is not set here") || !strings.Contains(errs, "no rpa process is up") {
		t.Errorf("add notes: %q", errs)
	}
	if _, errs, code = run("add", "hourly", filepath.Join(dir, "meter.flow"), "--every", "1h", "--arg", "region=110000", "--secret-env", "password=X", "--arg", "account=ops/backup"); code != 0 {
		t.Fatalf("add --every: %s", errs)
	}
	out, _, code = run("list")
	if code != 0 || !strings.Contains(out, "meter-am") || !strings.Contains(out, "0 8 * * 1-5 (Asia/Shanghai)") || !strings.Contains(out, "every 1h") {
		t.Fatalf("list:\n%s", out)
	}
	out, _, _ = run("list", "--json")
	var b struct {
		Schedules []map[string]any `json:"schedules"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil || len(b.Schedules) != 2 {
		t.Fatalf("list --json: %s", out)
	}
	out, _, code = run("pause", "hourly", "--json")
	if code != 0 || !strings.Contains(out, `"paused": true`) {
		t.Fatalf("pause --json (%d): %s", code, out)
	}
	out, _, code = run("resume", "hourly")
	if code != 0 || !strings.Contains(out, "resumed schedule hourly, next ") {
		t.Fatalf("resume: %s", out)
	}
	out, _, code = run("show", "meter-am")
	if code != 0 || !strings.Contains(out, "secrets:   password from $RPA_TEST_METER_PW") || !strings.Contains(out, "limits:    flow=2 site=1") {
		t.Fatalf("show:\n%s", out)
	}
	// With no scheduler up, run-now runs it here (it fails before any
	// browser starts: its secret's variable is not set).
	out, _, code = run("run-now", "hourly", "--json")
	if code != 1 || !strings.Contains(out, `"state": "failed"`) || !strings.Contains(out, "environment variable X, which is not set") {
		t.Fatalf("run-now here, without its secret (%d): %s", code, out)
	}
	out, _, _ = run("show", "hourly", "--json")
	var d struct {
		Fires []*runs.Fire `json:"fires"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Fires) != 1 || d.Fires[0].Kind != runs.FireManual {
		t.Fatalf("show --json after run-now: %s", out)
	}
	// With a scheduler up, run-now leaves the run to it.
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ok, _, _ := st.TakeLease("scheduler", runs.Me("tok", "rpa ui"), time.Now(), time.Minute); !ok {
		t.Fatal("no lease")
	}
	out, _, code = run("run-now", "meter-am")
	if code != 0 || !strings.Contains(out, "queued a run of meter-am; rpa ui (pid") {
		t.Fatalf("run-now with a scheduler up (%d): %s", code, out)
	}
	if fs, _ := st.ActiveFires(); len(fs) != 1 || fs[0].Schedule != "meter-am" || fs[0].State != runs.FireQueued {
		t.Fatalf("queued: %+v", fs)
	}
	out, _, code = run("rm", "hourly", "--json")
	if code != 0 || !strings.Contains(out, `"removed": true`) {
		t.Fatalf("rm: %s", out)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	// A webhook whose host does not answer now is a note, not a refusal.
	if _, errs, code := run("add", "hooked", "meter", "--cron", "0 8 * * *", "--arg", "region=1", "--secret-env", "password=P", "--account", "portal/admin", "--notify", "http://"+closed+"/hook"); code != 0 ||
		!strings.Contains(errs, "note: --notify http://"+closed+"/hook: cannot reach "+closed) {
		t.Errorf("an unreachable webhook: exit %d, %q", code, errs)
	}
	// Bad input: exit 2 with the flag named.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"add", "x", "meter", "--cron", "0 8 * *"}, `--cron "0 8 * *"`},
		{[]string{"add", "x", "meter", "--cron", "0 8 * * *", "--tz", "Asia/Nowhere"}, `--tz "Asia/Nowhere": unknown time zone`},
		{[]string{"add", "x", "nope", "--cron", "0 8 * * *"}, "flow nope: no such file, and no flow of that name"},
		{[]string{"add", "x", "meter", "--cron", "0 8 * * *", "--secret-env", "password=P", "--account", "portal/admin"}, `argument "region": required`},
		{[]string{"add", "x", "meter", "--cron", "0 8 * * *", "--arg", "region=1", "--secret-env", "password=P"}, "signs in with the credential param account: give --account NAME"},
		{[]string{"add", "meter-am", "meter", "--cron", "0 8 * * *", "--arg", "region=1", "--secret-env", "password=P", "--account", "portal/admin"}, "schedule meter-am: a schedule of that name exists (rpa schedule rm meter-am first"},
		{[]string{"add", "x", "meter", "--cron", "0 8 * * *", "--max-concurrent", "host=1"}, `"host" is not flow, site or account`},
		{[]string{"add", "x"}, "want NAME and FLOW"},
		{[]string{"show", "nope"}, "schedule nope: no such schedule"},
		{[]string{"pause", "nope"}, "no such schedule"},
		{[]string{"run-now", "nope"}, "no such schedule"},
		{[]string{"frobnicate"}, `unknown subcommand "frobnicate"`},
	} {
		_, errs, code := run(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("rpa schedule %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}

// A scheduled run carries its schedule's name in rpa runs --json.
func TestRunsJSONSchedule(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &runs.Run{Flow: "meter", Caller: runs.Caller{Kind: runs.CallerSchedule}, Schedule: "meter-am"}
	st.Begin(r)
	st.Finish(r.ID, runs.Outcome{Status: runs.StatusOK})
	plain := &runs.Run{Flow: "meter", Caller: runs.Caller{Kind: runs.CallerCLI}}
	st.Begin(plain)
	st.Finish(plain.ID, runs.Outcome{Status: runs.StatusOK})
	st.Close()
	var o, e bytes.Buffer
	if code := runRuns([]string{"--json", "--schedule", "meter-am"}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	var l []map[string]any
	if err := json.Unmarshal(o.Bytes(), &l); err != nil || len(l) != 1 || l[0]["schedule"] != "meter-am" || l[0]["id"] != r.ID {
		t.Fatalf("rpa runs --json --schedule: %s", o.String())
	}
	o.Reset()
	runRuns([]string{}, &o, &e)
	if !strings.Contains(o.String(), "schedule meter-am") {
		t.Fatalf("rpa runs: the caller column does not name the schedule:\n%s", o.String())
	}
}
