package profiles

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

// StateTimeout bounds an export or import: the browser's start and every
// origin's read or write.
const StateTimeout = 2 * time.Minute

// ExportState reads the storage state of the persistent profile in
// opts.UserDataDir: it starts a browser on it with d (the profile's lock
// is taken: a profile in use by another process is a
// *InUseError), reads every cookie and the local storage of the
// origins the profile has visited (its History) and of extra, and closes
// the browser.
func ExportState(ctx context.Context, d drivers.Driver, opts drivers.LaunchOptions, extra []string) (*drivers.StorageState, error) {
	origins, err := stateOrigins(opts.UserDataDir, extra)
	if err != nil {
		return nil, err
	}
	var st *drivers.StorageState
	err = withBrowser(ctx, d, opts, func(ss drivers.StorageStater) (err error) {
		st, err = ss.StorageState(ctx, origins)
		return err
	})
	return st, err
}

// ImportState adds st's cookies and local storage to the persistent
// profile in opts.UserDataDir, through a browser started on it with d.
func ImportState(ctx context.Context, d drivers.Driver, opts drivers.LaunchOptions, st *drivers.StorageState) error {
	for _, o := range st.Origins {
		if _, err := drivers.Origin(o.Origin); err != nil {
			return err
		}
	}
	return withBrowser(ctx, d, opts, func(ss drivers.StorageStater) error { return ss.SetStorageState(ctx, st) })
}

func withBrowser(ctx context.Context, d drivers.Driver, opts drivers.LaunchOptions, f func(drivers.StorageStater) error) error {
	ctx, cancel := context.WithTimeout(ctx, StateTimeout)
	defer cancel()
	br, err := Launch(ctx, d, opts)
	if err != nil {
		return err
	}
	defer br.Close()
	ss, ok := br.(drivers.StorageStater)
	if !ok {
		return errors.New("this browser driver cannot read or write a profile's storage")
	}
	return f(ss)
}

// stateOrigins are the origins whose local storage an export reads: those
// of the http(s) pages in the profile's History, then extra, each once.
func stateOrigins(dir string, extra []string) ([]string, error) {
	var out []string
	add := func(s string) error {
		o, err := drivers.Origin(s)
		if err != nil {
			return err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
		return nil
	}
	for _, u := range historyURLs(filepath.Join(dir, "Default", "History")) {
		_ = add(u)
	}
	for _, e := range extra {
		if err := add(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// historyURLs lists the http(s) URLs of a Chromium History database (none
// when it cannot be read).
func historyURLs(path string) []string {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro&_pragma=busy_timeout(2000)")
	if err != nil {
		return nil
	}
	defer db.Close()
	rows, err := db.Query(`SELECT url FROM urls WHERE url LIKE 'http://%' OR url LIKE 'https://%' ORDER BY last_visit_time DESC LIMIT 10000`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u string
		if rows.Scan(&u) == nil {
			out = append(out, u)
		}
	}
	return out
}

// StateUsage is `rpa profile`'s usage text.
const StateUsage = "rpa profile export ID -o FILE [--origin URL]...   (cookies and local storage, encrypted)\n" +
	"       rpa profile import ID FILE"

// ErrStateUsage is a command line of `rpa profile` that names no known
// subcommand or has the wrong arguments.
var ErrStateUsage = errors.New("usage: " + StateUsage)

// StateCmd carries out `rpa profile export|import` (cmd/rpa parses the
// flags and wires it): the profile's storage state as a file encrypted
// under a passphrase (vault.SealData, kind profile;
// RPA_VAULT_EXPORT_PASSPHRASE, else asked on the terminal).
type StateCmd struct {
	// Driver starts the browser; Launch is the launch options but the
	// profile folder (Bin, Remote ...).
	Driver drivers.Driver
	Launch drivers.LaunchOptions
	Ask    vault.Asker
	Stdout io.Writer

	Out     string   // export: the file to write
	Origins []string // export: origins to read besides those of History
}

// Register declares the flags of the subcommands on fs.
func (c *StateCmd) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.Out, "o", "", "export: the file to write")
	fs.Func("origin", "export: also read this origin's local storage (repeatable; those in the profile's History are read)",
		func(s string) error { c.Origins = append(c.Origins, s); return nil })
	fs.StringVar(&c.Launch.Bin, "browser-bin", "", "the Chromium binary (default: ROD_BROWSER, then chromium on PATH)")
}

// Refused reports whether err is a refusal (exit 1: a wrong passphrase, a
// damaged file, a profile another process uses) rather than bad input.
func (c *StateCmd) BadInput(err error) bool { return vault.BadInput(err) }

// Run carries out `rpa profile SUB POS...`.
func (c *StateCmd) Run(ctx context.Context, sub string, pos []string) error {
	if len(pos) == 0 || sub == "export" && (len(pos) != 1 || c.Out == "") || sub == "import" && len(pos) != 2 || sub != "export" && sub != "import" {
		return ErrStateUsage
	}
	dir, err := Dir(pos[0])
	if err != nil {
		return vault.Input(fmt.Errorf("profile %q: %v", pos[0], err))
	}
	opts := c.Launch
	opts.UserDataDir = dir
	if sub == "export" {
		if _, err := os.Stat(dir); err != nil {
			return vault.Input(fmt.Errorf("there is no profile %s (%s)", pos[0], dir))
		}
		st, err := ExportState(ctx, c.Driver, opts, c.Origins)
		if err != nil {
			return err
		}
		data, _ := json.Marshal(st)
		pass, err := vault.ExportPassphrase(c.Ask, true)
		if err != nil {
			return err
		}
		b, err := vault.SealData(vault.KindProfile, data, pass, vault.KDF{})
		if err == nil {
			err = atomicfile.Write(c.Out, b, 0o600)
		}
		if err == nil {
			fmt.Fprintf(c.Stdout, "exported profile %s to %s: %d cookies, local storage of %d origins\n", pos[0], c.Out, len(st.Cookies), len(st.Origins))
		}
		return err
	}
	b, err := vault.ReadFile(pos[1])
	if err != nil {
		return err
	}
	pass, err := vault.ExportPassphrase(c.Ask, false)
	if err != nil {
		return err
	}
	data, err := vault.OpenData(pos[1], b, vault.KindProfile, pass)
	if err != nil {
		return err
	}
	var st drivers.StorageState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("%s: not a profile's storage state: %v", pos[1], err)
	}
	clear(data)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := ImportState(ctx, c.Driver, opts, &st); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "imported into profile %s: %d cookies, local storage of %d origins\n", pos[0], len(st.Cookies), len(st.Origins))
	return nil
}
