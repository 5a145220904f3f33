package vault

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/host/lease"
)

// Usage is `rpa vault`'s usage text.
const Usage = "rpa vault set NAME [--merge] [--field F]...   (values from hidden prompts, or one JSON object on stdin)\n" +
	"       rpa vault list [--json]\n       rpa vault rm NAME\n" +
	"       rpa vault export [NAME]... -o FILE\n       rpa vault import FILE [--overwrite]"

// EnvExportPassphrase gives an export file's passphrase to scripts
// (`rpa vault export` and `import`, `rpa profile export` and `import`);
// else it is asked on the terminal.
const EnvExportPassphrase = "RPA_VAULT_EXPORT_PASSPHRASE"

// ErrUsage is a command line that names no known subcommand or has the
// wrong number of arguments; the usage is the message.
var ErrUsage = errors.New("usage: " + Usage)

// Cmd carries out the subcommands of `rpa vault` (cmd/rpa parses the flags
// and wires it).
type Cmd struct {
	Home string // $RPA_HOME
	// Stdin is where `set` reads one JSON object when StdinTTY is false;
	// on a terminal `set` asks with Ask (hidden prompts) instead.
	Stdin    io.Reader
	StdinTTY bool
	// Ask asks a person (fields, passphrases); nil: nobody to ask.
	Ask            Asker
	Stdout, Stderr io.Writer

	// Flags.
	Merge     bool     // set: keep the account's other fields
	Fields    []string // set: further fields to ask for
	JSON      bool     // list: JSON
	Out       string   // export: the file to write
	Overwrite bool     // import: replace accounts the vault holds
}

// Refused is the package's Refused, for cmd/rpa's command frame.
func (c *Cmd) BadInput(err error) bool { return BadInput(err) }

// ErrInput matches (errors.Is) an error Input marked: the caller's input
// was bad and nothing was changed.
var ErrInput = errors.New("bad input")

// Input marks err as bad input (errors.Is(err, ErrInput)); nil stays nil.
func Input(err error) error {
	if err == nil {
		return nil
	}
	return inputError{err}
}

type inputError struct{ error }

func (e inputError) Is(target error) bool { return target == ErrInput }
func (e inputError) Unwrap() error        { return e.error }

// BadInput reports whether err is bad input (README's exit 2: a bad name
// or field, no such account, an import over accounts the vault holds, a
// missing passphrase or file; nothing was changed) rather than a failure
// (exit 1: a vault or export file that would not open, as a wrong
// passphrase or a damaged file, a file that could not be written, a vault
// another process holds, anything else).
func BadInput(err error) bool {
	var ie *ImportError
	return errors.Is(err, ErrInput) || errors.Is(err, ErrUsage) || errors.Is(err, ErrNoPassphrase) ||
		errors.Is(err, ErrNotFound) || errors.As(err, &ie)
}

// Register declares the flags of the subcommands on fs.
func (c *Cmd) Register(fs *flag.FlagSet) {
	fs.BoolVar(&c.Merge, "merge", false, "set: keep the account's other fields")
	fs.Func("field", "set: also ask for this field (repeatable)", func(s string) error { c.Fields = append(c.Fields, s); return nil })
	fs.BoolVar(&c.JSON, "json", false, "list: print JSON")
	fs.StringVar(&c.Out, "o", "", "export: the file to write")
	fs.BoolVar(&c.Overwrite, "overwrite", false, "import: replace accounts the vault holds")
}

// Run carries out `rpa vault SUB POS...` (ctx is not used: nothing waits).
func (c *Cmd) Run(_ context.Context, sub string, pos []string) error {
	st := Default(c.Home, c.Ask)
	n, known := map[string]int{"set": 1, "rm": 1, "list": 0, "import": 1, "export": -1}[sub]
	if !known || n >= 0 && len(pos) != n || sub == "export" && c.Out == "" {
		return ErrUsage
	}
	switch sub {
	case "set":
		var fields map[string]string
		var err error
		if c.StdinTTY {
			fields, err = AskFields(c.ask, c.Fields)
		} else {
			fields, err = ReadFields(c.Stdin)
		}
		if err == nil {
			err = st.Set(pos[0], fields, c.Merge)
		}
		if err == nil {
			fmt.Fprintf(c.Stdout, "stored %s (%d fields) in %s\n", pos[0], len(fields), st.Path())
		}
		return err
	case "list":
		infos, err := st.List()
		if err != nil {
			return err
		}
		l := make([]Listed, len(infos))
		for i, in := range infos {
			l[i].Info = in
			if h, ok := lease.NewLocal(c.Home).Last(in.Name); ok {
				l[i].LastUsed, l[i].LastRun = &h.Since, h.RunID
			}
		}
		switch {
		case c.JSON:
			enc := json.NewEncoder(c.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(l)
		case len(l) == 0:
			fmt.Fprintln(c.Stderr, "the vault holds no account yet (rpa vault set NAME)")
			return nil
		}
		return WriteList(c.Stdout, l)
	case "rm":
		err := st.Remove(pos[0])
		if err == nil {
			fmt.Fprintf(c.Stdout, "removed %s\n", pos[0])
		}
		return err
	case "export":
		p, err := ExportPassphrase(c.Ask, true)
		if err != nil {
			return err
		}
		b, err := st.Export(pos, p)
		if err == nil {
			err = atomicfile.Write(c.Out, b, 0o600)
		}
		if err == nil {
			fmt.Fprintf(c.Stdout, "exported to %s (move it with its passphrase; rpa vault import %s)\n", c.Out, c.Out)
		}
		return err
	}
	b, err := ReadFile(pos[0]) // import
	if err != nil {
		return err
	}
	p, err := ExportPassphrase(c.Ask, false)
	if err != nil {
		return err
	}
	names, err := st.Import(pos[0], b, p, c.Overwrite)
	if err == nil {
		fmt.Fprintf(c.Stdout, "imported %d accounts: %s\n", len(names), strings.Join(names, ", "))
	}
	return err
}

func (c *Cmd) ask(title string, hidden bool) (string, bool, error) {
	if c.Ask == nil {
		return "", false, Input(ErrNoTerminal)
	}
	return c.Ask(title, hidden)
}

// ExportPassphrase is an export file's passphrase (rpa vault and rpa
// profile export and import): EnvExportPassphrase, else asked with ask
// (twice for a new file, confirm). A new file's passphrase has at least
// minPassphrase characters, spaces at its ends not counted.
func ExportPassphrase(ask Asker, confirm bool) ([]byte, error) {
	if p := os.Getenv(EnvExportPassphrase); p != "" {
		// a new file's passphrase has the terminal's rule (PassphraseFrom):
		// " " and "a" were accepted for a file meant to travel
		if confirm && tooShort(p) {
			return nil, Input(fmt.Errorf("%s is shorter than %d characters (spaces at its ends not counted): an export file needs a longer passphrase", EnvExportPassphrase, minPassphrase))
		}
		return []byte(p), nil
	}
	none := Input(errors.New("the export file needs a passphrase: set " + EnvExportPassphrase + " or run on a terminal"))
	if ask == nil {
		return nil, none
	}
	p, err := PassphraseFrom(ask)("Passphrase of the export file", confirm)
	switch {
	case errors.Is(err, ErrNoPassphrase):
		return nil, none
	case errors.Is(err, ErrNoTerminal):
		// Say what to set, not only that nobody could be asked.
		return nil, Input(fmt.Errorf("the export file needs a passphrase: set %s or run on a terminal (%v)", EnvExportPassphrase, err))
	}
	return p, err
}
