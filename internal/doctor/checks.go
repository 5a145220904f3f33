package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
)

// installBrowser is the fix line for a missing browser.
const installBrowser = "install Chromium (Debian, UOS, Kylin: `sudo apt-get install chromium`, or `sudo dnf install chromium`), or point ROD_BROWSER or --browser-bin at a Chromium-family browser"

// BrowserCheck is the "browser" check plus the binary it found ("" when none).
type BrowserCheck struct {
	Check
	Path string
}

// CheckBrowser finds the browser as a launch would (bin, else $ROD_BROWSER,
// /usr/bin/chromium, chromium and friends on PATH; never downloaded) and
// asks it for its version (`BIN --version`, 10 s at most). Fails when no
// browser is found.
func CheckBrowser(ctx context.Context, bin string) BrowserCheck {
	c := BrowserCheck{Check: Check{Name: "browser"}}
	p, err := rod.FindBrowser(bin)
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, firstLine(err.Error()), installBrowser
		return c
	}
	c.Path, c.Status, c.Detail = p, OK, p
	if v := browserVersion(ctx, p); v != "" {
		c.Detail += " (" + v + ")"
	}
	return c
}

// browserVersion runs `bin --version`; "" when it says nothing in time.
func browserVersion(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.WaitDelay = time.Second
	_ = cmd.Run()
	return firstLine(out.String())
}

// CheckIsolation says how launched browsers are kept from other local
// users: DevTools over a pipe only rpa holds (never a TCP port), and
// whether Chromium's sandbox is on (off when rpa runs as root, or when the
// kernel refused it at a launch of this process, e.g. CheckLaunch's: a
// note with the fix).
func CheckIsolation() Check {
	c := Check{Name: "browser isolation", Status: OK}
	c.Detail = "DevTools over a pipe only rpa holds (no TCP port); Chromium's sandbox on"
	switch why := rod.SandboxOff(); {
	case why == "":
	case strings.HasPrefix(why, "running as root"):
		c.Status = Note
		c.Detail = "DevTools over a pipe only rpa holds (no TCP port); Chromium's sandbox off: " + why
		c.Fix = "run rpa as a regular user to keep Chromium's sandbox (it cannot run as root)"
	default:
		c.Status = Note
		c.Detail = "DevTools over a pipe only rpa holds (no TCP port); Chromium's sandbox off: " + why
		c.Fix = "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10 and later kernel.apparmor_restrict_unprivileged_userns=0), or install the browser's setuid chrome-sandbox helper"
	}
	return c
}

// CheckLaunch starts the browser at bin headless once, in a throwaway
// profile under the system temp folder, opens about:blank and reads the
// user agent, then closes it (no process outlives the call). home is only
// named in the fix line. Fails when the browser does not start.
func CheckLaunch(ctx context.Context, bin, home string) Check {
	c := Check{Name: "browser launch"}
	dir, err := os.MkdirTemp("", "rpa-doctor-")
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, "temporary profile: "+err.Error(), "make the system temp folder ($TMPDIR, /tmp) writable"
		return c
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	ua, err := launchOnce(ctx, bin, dir)
	if err != nil {
		c.Status, c.Detail = Fail, firstLine(err.Error())
		c.Fix = "run `" + bin + " --headless=new --no-sandbox --dump-dom about:blank` to see why it does not start; reinstall it, or free memory and disk space (" + home + ")"
		return c
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("headless start and page load in %s", time.Since(start).Round(10*time.Millisecond))
	if ua != "" {
		c.Detail += ": " + ua
	}
	return c
}

func launchOnce(ctx context.Context, bin, dir string) (string, error) {
	b, err := profiles.Launch(ctx, rod.New(), drivers.LaunchOptions{Bin: bin, UserDataDir: dir})
	if err != nil {
		return "", err
	}
	defer b.Close()
	p, err := b.NewPage(ctx, "about:blank")
	if err != nil {
		return "", err
	}
	v, err := p.Eval(ctx, "() => navigator.userAgent")
	if err != nil {
		return "", err
	}
	ua, _ := v.(string)
	// "Mozilla/5.0 (X11; Linux x86_64) ... HeadlessChrome/131.0.0.0 Safari/537.36" → the product token.
	for _, f := range strings.Fields(ua) {
		if strings.Contains(f, "Chrome/") {
			return f, nil
		}
	}
	return ua, nil
}

// CheckHome checks that home exists (creating it, mode 0700, when missing)
// and that a file can be written, synced and removed there. Fails otherwise.
func CheckHome(home string) Check {
	c := Check{Name: "home"}
	fix := "set RPA_HOME to a folder you own (e.g. `export RPA_HOME=$HOME/.rpa`), or give yourself write access to " + home
	if err := os.MkdirAll(home, 0o700); err != nil {
		c.Status, c.Detail, c.Fix = Fail, home+" cannot be created: "+pathErr(err), fix
		return c
	}
	f, err := os.CreateTemp(home, ".doctor-*")
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, home+" is not writable: "+pathErr(err), fix
		return c
	}
	name := f.Name()
	_, werr := f.WriteString("rpa doctor\n")
	if werr == nil {
		werr = f.Sync()
	}
	cerr := f.Close()
	rerr := os.Remove(name)
	if err := errors.Join(werr, cerr, rerr); err != nil {
		c.Status, c.Detail, c.Fix = Fail, home+" is not writable: "+pathErr(err), fix
		return c
	}
	c.Status, c.Detail = OK, home+" is writable"
	return c
}

// CheckRunStore checks the run store's database under home read-only
// (runs.CheckStore). A damaged one is a failure: the next rpa serve, connect
// or run moves it aside (runs.db.corrupt-TIME) and starts a fresh, empty
// store, so its runs are no longer listed.
func CheckRunStore(home string) Check {
	c := Check{Name: "run store"}
	err := runs.CheckStore(home)
	switch {
	case err == nil:
		c.Status, c.Detail = OK, filepath.Join(home, "runs", runs.DBName)+" is sound"
	case runs.IsCorrupt(err):
		c.Status, c.Detail = Fail, err.Error()
		c.Fix = "the next rpa serve, connect or run moves it aside (runs.db.corrupt-TIME, kept for inspection) and starts an empty store; to keep its runs, restore a copy of " + filepath.Join(home, "runs", runs.DBName) + " before that"
	default:
		c.Status, c.Detail = Fail, "cannot read the run store: "+err.Error()
		c.Fix = "make " + filepath.Join(home, "runs") + " readable and writable by you"
	}
	return c
}

// pathErr drops the *PathError's path (the detail names the folder already).
func pathErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// CheckProfiles looks at every profile folder under home/profiles. A
// profile in use by a live rpa process (it holds the folder's rpa lock:
// profiles.Holder), with or without a running browser, is in use: a note
// naming that process, never a failure, and never advice to kill the
// browser it owns. A profile whose lock Chromium holds (its SingletonLock
// names a live browser: ProfileLock) while no rpa process holds it is an
// orphan (a browser left by an rpa that died, or one started by hand): a
// failure, since a second browser cannot use the folder. A stale lock (its
// process is gone) is a note: Chromium takes such a lock over at its next
// start. A profile marked dirty (profiles.DirtyFileName) that no rpa
// process holds was given secrets by a browser whose rpa died before
// scrubbing them (kill -9, a power cut): its history-like files (History,
// Sessions, Web Data's autocomplete, ...) may still hold them, a failure
// whose fix is `rpa doctor --fix` (ScrubProfiles; the next run on the
// profile scrubs it too). So are temporary profiles of killed runs under
// home/tmp (profiles.StaleTemp; --fix removes them, as the next rpa start
// does).
func CheckProfiles(home string) Check {
	c := Check{Name: "profiles"}
	dir := filepath.Join(home, "profiles")
	// temporary profiles left by killed runs (profiles.StaleTemp): what a
	// run typed may remain in them until the next rpa start sweeps them
	temps := profiles.StaleTemp(home)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) && len(temps) == 0 {
		c.Status, c.Detail = OK, "no profiles yet ("+dir+")"
		return c
	}
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, dir+": "+pathErr(err), "give yourself read access to "+dir
		return c
	}
	var orphans, inUse, stale, dirty []string
	var pids []string
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		pdir := filepath.Join(dir, e.Name())
		l, err := ProfileLock(pdir)
		if owner, held := profiles.Holder(pdir); held {
			what := e.Name() + " (rpa"
			if owner > 0 {
				what += fmt.Sprintf(" pid %d", owner)
			}
			if err == nil && l != nil && l.Live && l.PID > 0 {
				what += fmt.Sprintf(", its browser pid %d", l.PID)
			}
			inUse = append(inUse, what+")")
			continue
		}
		if profiles.IsDirty(pdir) {
			dirty = append(dirty, e.Name())
		}
		switch {
		case err != nil:
			stale = append(stale, e.Name()+" (lock unreadable: "+pathErr(err)+")")
		case l == nil:
		case l.Live:
			what := e.Name()
			if l.PID > 0 {
				what += fmt.Sprintf(" (pid %d", l.PID)
				if l.Command != "" {
					what += " " + l.Command
				}
				what += ")"
				pids = append(pids, fmt.Sprint(l.PID))
			} else {
				what += " (" + l.Owner + ")"
			}
			orphans = append(orphans, what)
		default:
			stale = append(stale, e.Name()+" (stale lock of "+l.Owner+")")
		}
	}
	var parts []string
	if len(orphans) > 0 {
		parts = append(parts, fmt.Sprintf("%d held by a browser no rpa process owns: %s", len(orphans), strings.Join(orphans, ", ")))
	}
	if len(inUse) > 0 {
		parts = append(parts, fmt.Sprintf("%d in use by a running rpa: %s", len(inUse), strings.Join(inUse, ", ")))
	}
	if len(stale) > 0 {
		parts = append(parts, strings.Join(stale, ", "))
	}
	if len(dirty) > 0 {
		parts = append(parts, fmt.Sprintf("%d not scrubbed since a crash (secrets a run used may remain in its history, session and form-autofill files): %s", len(dirty), strings.Join(dirty, ", ")))
	}
	if len(temps) > 0 {
		parts = append(parts, fmt.Sprintf("%d temporary profile(s) left by runs that were killed (what a run typed, a secret too, may remain in them): %s", len(temps), strings.Join(temps, ", ")))
	}
	c.Detail = fmt.Sprintf("%d profile(s)", n)
	if len(parts) > 0 {
		c.Detail += "; " + strings.Join(parts, "; ")
	}
	const scrubFix = "`rpa doctor --fix` scrubs the profiles a crash left (the next run on each scrubs it too)"
	switch {
	case len(orphans) > 0:
		c.Status = Fail
		c.Fix = "close that browser (left by an rpa process that is gone, or started by hand) before a flow uses the profile"
		if len(pids) > 0 && runtime.GOOS != "windows" {
			c.Fix += "; if it is left over, `kill " + strings.Join(pids, " ") + "`"
		}
		if len(dirty) > 0 {
			c.Fix += "; then " + scrubFix
		}
	case len(dirty) > 0 || len(temps) > 0:
		c.Status, c.Fix = Fail, scrubFix
		if len(temps) > 0 {
			c.Fix = "`rpa doctor --fix` scrubs the profiles a crash left and removes the temporary ones (the next rpa run, serve, connect or ui does too)"
		}
	case len(inUse) > 0:
		c.Status = Note
		c.Fix = "nothing to do: a running rpa (serve, connect, run) uses it; to use the profile elsewhere, stop that rpa first"
	case len(stale) > 0:
		c.Status = Note
		c.Fix = "nothing to do: Chromium takes a stale lock over at its next start"
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("%d profile(s), none in use", n)
	}
	return c
}

// CheckDisplay reports whether the desktop channel for asking a person can
// show a dialog: always on Windows and macOS; elsewhere when DISPLAY or
// WAYLAND_DISPLAY is set (the rule of hitl.HasDisplay). No display is a
// note: questions then go to the terminal or the MCP client.
func CheckDisplay(getenv func(string) string) Check {
	c := Check{Name: "display"}
	switch runtime.GOOS {
	case "windows", "darwin":
		c.Status, c.Detail = OK, "native desktop"
		return c
	}
	var set []string
	for _, k := range []string{"WAYLAND_DISPLAY", "DISPLAY"} {
		if v := getenv(k); v != "" {
			set = append(set, k+"="+v)
		}
	}
	if len(set) == 0 {
		c.Status, c.Detail = Note, "none (DISPLAY and WAYLAND_DISPLAY are unset): headless, so `ask` goes to the terminal or the MCP client"
		c.Fix = "only needed for desktop dialogs: run rpa inside the desktop session"
		return c
	}
	c.Status, c.Detail = OK, strings.Join(set, ", ")
	return c
}

// dialogTools are the programs github.com/ncruces/zenity drives on Linux
// and BSD, in the order it tries them.
var dialogTools = []string{"qarma", "zenity", "matedialog"}

// CheckDialogs names the dialog backend of the desktop channel: the
// system's own on Windows and macOS; elsewhere the first of qarma, zenity
// and matedialog on PATH. None is a note.
func CheckDialogs(lookPath func(string) (string, error)) Check {
	c := Check{Name: "dialogs"}
	switch runtime.GOOS {
	case "windows", "darwin":
		c.Status, c.Detail = OK, "native dialogs"
		return c
	}
	for _, t := range dialogTools {
		if p, err := lookPath(t); err == nil {
			c.Status, c.Detail = OK, p
			return c
		}
	}
	c.Status, c.Detail = Note, "no dialog program (qarma, zenity or matedialog) on PATH"
	c.Fix = "only needed for desktop dialogs: `sudo apt-get install zenity`"
	return c
}

// CheckFlows loads every flow file directly in dir, with the folder known
// (as `rpa serve` does), and counts those that check clean. A missing folder
// is a note; a flow with errors (it would not be served) fails.
func CheckFlows(dir string) Check {
	c := Check{Name: "flows"}
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		c.Status, c.Detail = Note, dir+" does not exist yet"
		c.Fix = "`rpa publish FILE.flow` copies a flow there (`rpa serve` and `rpa connect` serve that folder)"
		return c
	}
	if err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a folder")
		}
		c.Status, c.Detail, c.Fix = Fail, dir+": "+pathErr(err), "make "+dir+" a readable folder of flows"
		return c
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, dir+": "+pathErr(err), "give yourself read access to "+dir
		return c
	}
	files := 0
	for _, e := range entries {
		if !e.IsDir() && lang.IsFlowFile(e.Name()) && !strings.HasPrefix(e.Name(), ".") {
			files++
		}
	}
	if files == 0 {
		c.Status, c.Detail = Note, "no flow files in "+dir
		c.Fix = "`rpa publish FILE.flow` copies a flow there"
		return c
	}
	flows, ds := lang.LoadDir(dir)
	bad := files - len(flows)
	if bad > 0 || ds.HasErrors() {
		c.Status = Fail
		c.Detail = fmt.Sprintf("%d of %d flow file(s) in %s check clean", len(flows), files, dir)
		if ds.HasErrors() {
			c.Detail += "; first error: " + firstLine(ds.Error())
		}
		c.Fix = "`rpa check " + dir + "` shows every error with its line; fix or remove those files (they are not served)"
		return c
	}
	c.Status, c.Detail = OK, fmt.Sprintf("%d flow(s) in %s check clean", len(flows), dir)
	return c
}

// ScrubProfiles scrubs every profile folder under home/profiles that a
// crash left marked dirty and no process uses (profiles.WipeDirty; one a
// running rpa holds is skipped, that rpa scrubs it): it
// returns the profiles scrubbed and, per profile it could not scrub, why.
func ScrubProfiles(home string) (scrubbed []string, failed map[string]error) {
	dir := filepath.Join(home, "profiles")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		wiped, err := profiles.WipeDirty(filepath.Join(dir, e.Name()))
		switch {
		case errors.Is(err, profiles.ErrInUse):
			// A running rpa holds it: it scrubs the folder when it closes
			// the browser.
		case err != nil:
			if failed == nil {
				failed = map[string]error{}
			}
			failed[e.Name()] = err
		case wiped:
			scrubbed = append(scrubbed, e.Name())
		}
	}
	return scrubbed, failed
}
