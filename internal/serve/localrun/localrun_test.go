package localrun_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/localrun"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

func load(t *testing.T, src string) *lang.Flow {
	t.Helper()
	f, ds := lang.Load("t.flow", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	return f
}

// TestRun runs a flow in real Chromium in a persistent profile with a
// secret in the page's address: the result is right, the run is recorded
// (its line names the run in the store), and once the browser has closed
// the profile holds the secret nowhere and no scrub mark. A failing flow is
// an Outcome too (neither cancelled nor timed out).
func TestRun(t *testing.T) {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Account</title><h1 id="h">hello</h1>`)
	}))
	defer srv.Close()
	f := load(t, "flow acct \"x\"\nparam base: string\nparam pw: secret\n\nopen \"{{ base }}/?pw={{ pw }}\"\nh = text \"#h\"\nreturn {\"h\": h}\n")
	const pw = "hunter-2222"
	var warns []string
	args, err := f.CheckArgs(map[string]any{"base": srv.URL, "pw": pw})
	if err != nil {
		t.Fatal(err)
	}
	out, err := localrun.Run(context.Background(), f, localrun.Options{
		Args: args, Profile: "acct",
		Warn: func(m string) { warns = append(warns, m) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Result.Success || fmt.Sprint(out.Result.Outputs) != "map[h:hello]" || out.Cancelled || out.TimedOut || len(warns) > 0 {
		t.Fatalf("outcome %+v %+v, warnings %q", out, out.Result, warns)
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(out.Record, "run "), " ")
	st, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r, err := st.Get(id); err != nil || r.Flow != "acct" {
		t.Errorf("record %q: %+v %v", out.Record, r, err)
	}
	dir, _ := profiles.Dir("acct")
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), pw) {
				t.Errorf("%s holds the secret after the run", p)
			}
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dir, profiles.DirtyFileName)); !os.IsNotExist(err) {
		t.Errorf("scrub mark left: %v", err)
	}

	prog := &interp.Progress{W: &strings.Builder{}}
	out, err = localrun.Run(context.Background(), load(t, "flow bad \"x\"\n\nfail \"no\"\n"), localrun.Options{Progress: prog})
	if err != nil || out.Result.Success || out.Cancelled || out.TimedOut || out.Record == "" {
		t.Errorf("failing flow: %+v %v", out, err)
	}
}

// TestRunNotStarted: why nothing ran is typed (no browser starts).
func TestRunNotStarted(t *testing.T) {
	t.Setenv("RPA_HOME", t.TempDir())
	f := load(t, "flow x \"x\"\n\nopen \"about:blank\"\n")
	_, err := localrun.Run(context.Background(), f, localrun.Options{Profile: "../up"})
	if se := (*localrun.SetupError)(nil); !errors.As(err, &se) {
		t.Errorf("bad profile ID: %v", err)
	}
	if runtime.GOOS == "linux" {
		t.Setenv("DISPLAY", "")
		t.Setenv("WAYLAND_DISPLAY", "")
		_, err = localrun.Run(context.Background(), f, localrun.Options{Show: true})
		if se := (*localrun.SetupError)(nil); !errors.As(err, &se) || !strings.Contains(err.Error(), "--show: no display") {
			t.Errorf("--show without a display: %v", err)
		}
	}
	_, err = localrun.Run(context.Background(), f, localrun.Options{Bin: "/nonexistent/chromium"})
	if le := (*localrun.LaunchError)(nil); !errors.As(err, &le) || !strings.Contains(err.Error(), "could not be started") {
		t.Errorf("missing binary: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = localrun.Run(ctx, f, localrun.Options{}); !errors.Is(err, localrun.ErrCancelled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestRunTemporaryProfile: a run in a temporary profile reports its
// phases in order, and once Run returns its browser (ended without a
// graceful shutdown: the folder is thrown away) has left no process and
// the folder is gone, while the run is recorded.
func TestRunTemporaryProfile(t *testing.T) {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><h1 id="h">hello</h1>`)
	}))
	defer srv.Close()
	f := load(t, "flow tmp \"x\"\nparam base: string\n\nopen base\nh = text \"#h\"\nreturn h\n")
	args, err := f.CheckArgs(map[string]any{"base": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	out, err := localrun.Run(context.Background(), f, localrun.Options{Args: args,
		Phase: func(name string) { phases = append(phases, name) }})
	if err != nil || !out.Result.Success || out.Record == "" {
		t.Fatalf("outcome %+v %v", out, err)
	}
	if got := strings.Join(phases, " "); got != "setup launch record flow finish close scrub" {
		t.Errorf("phases %q", got)
	}
	left, _ := filepath.Glob(filepath.Join(home, "tmp", "profile-*"))
	if len(left) > 0 {
		t.Errorf("temporary profile left: %v", left)
	}
	if runtime.GOOS == "linux" {
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
			if err != nil || !strings.Contains(string(cmdline), "--user-data-dir="+home) {
				continue
			}
			if st, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue // a zombie: dead, waiting for its parent
			}
			t.Errorf("browser process %s left after the run", p.Name())
		}
	}
}

// cancelLeaser cancels the run while it waits for an account's lease (a
// Ctrl-C then).
type cancelLeaser struct{ cancel context.CancelFunc }

func (c cancelLeaser) Acquire(ctx context.Context, _ lease.Request) (lease.Lease, error) {
	c.cancel()
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestRunCancelledWaitingForAccount: a run cancelled while it waits for its
// account says so (ErrCancelled still matches), not that the browser was
// starting: none was.
func TestRunCancelledWaitingForAccount(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv(vault.EnvKeyring, "off")
	t.Setenv(vault.EnvPassphrase, "cancel test passphrase")
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err := st.Set("portal/admin", map[string]string{"username": "admin", "password": "pw"}, false); err != nil {
		t.Fatal(err)
	}
	f := load(t, "flow x \"x\"\nparam account: credential\nopen \"about:blank\"\nfill \"#u\" account.username\n")
	args, err := f.ArgsFromFile("", map[string]string{"account": "portal/admin"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = localrun.Run(ctx, f, localrun.Options{Args: args, Vault: st, Leases: cancelLeaser{cancel}, AccountWait: time.Minute, Bin: "/nonexistent/chromium"})
	if !errors.Is(err, localrun.ErrCancelled) || err.Error() != "cancelled while waiting for account portal/admin" {
		t.Errorf("cancelled while waiting: %v", err)
	}
}
