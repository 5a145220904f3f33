package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/columns"
	"github.com/rpa-dev/rpa/internal/host/hitl"
)

// Asker asks a person one question: title is the prompt, hidden asks
// without echo. ok is false when the person gave no answer (an empty line,
// end of input); err when nobody can be asked.
type Asker func(title string, hidden bool) (answer string, ok bool, err error)

// ErrNoTerminal is the error of an Asker that has no terminal to ask on.
var ErrNoTerminal = errors.New("no terminal to ask on")

// TerminalAsker asks on the controlling terminal (hitl.Terminal; /dev/tty,
// or the console on Windows), hidden when asked; no terminal is an error.
func TerminalAsker(title string, hidden bool) (string, bool, error) {
	t, err := hitl.OpenTerminal()
	if err != nil {
		return "", false, Input(fmt.Errorf("%w: %v", ErrNoTerminal, err))
	}
	defer t.In.Close()
	in := map[bool]string{false: "text", true: "password"}[hidden]
	a, err := t.Ask(context.Background(), core.Question{Title: title, Input: in})
	return a.Text, a.Status == core.AnswerAnswered, err
}

// ReadFields reads an account's fields as one JSON object of strings from
// r (`rpa vault set NAME` when stdin is not a terminal):
// {"username":"admin","password":"…","totp":"BASE32SEED"}. Errors name
// the field, never a value.
func ReadFields(r io.Reader) (map[string]string, error) {
	const most = MaxFields * (MaxValueLen + 64)
	b, err := io.ReadAll(io.LimitReader(r, most+1))
	if err != nil {
		return nil, err
	}
	defer clear(b)
	if len(b) > most {
		return nil, Input(fmt.Errorf("stdin: too large: more than %d bytes (an account holds at most %d fields of at most %d bytes each)", most, MaxFields, MaxValueLen))
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, Input(errors.New(`stdin: want one JSON object of strings, such as {"username":"admin","password":"...","totp":"BASE32SEED"}`))
	}
	if dec.More() {
		return nil, Input(errors.New("stdin: more than one JSON value (give one object)"))
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		s, ok := v.(string)
		if !ok {
			return nil, Input(fmt.Errorf("stdin: field %q is not a string", k))
		}
		out[k] = s
	}
	return out, nil
}

// AskFields asks for an account's fields: username, password, a TOTP seed,
// then each field of extra (all but the username hidden). A question that
// gets no answer leaves its field out.
func AskFields(ask Asker, extra []string) (map[string]string, error) {
	out := map[string]string{}
	for _, q := range []struct {
		field, title string
		hidden       bool
	}{
		{FieldUsername, "Username (shown as you type)", false},
		{FieldPassword, "Password (hidden)", true},
		{FieldTOTP, "TOTP seed, base32 or an otpauth:// URI (hidden; no answer if the account has none)", true},
	} {
		a, ok, err := ask(q.title, q.hidden)
		if err != nil {
			return nil, err
		}
		if ok {
			out[q.field] = a
		}
	}
	for _, f := range extra {
		a, ok, err := ask(fmt.Sprintf("Field %q (hidden)", f), true)
		if err != nil {
			return nil, err
		}
		if ok {
			out[f] = a
		}
	}
	return out, nil
}

// minPassphrase is the fewest characters of a new vault's passphrase,
// spaces at its ends not counted.
const minPassphrase = 8

// tooShort reports whether p is too short for a new vault or export file
// (minPassphrase), whoever gave it: the terminal or the environment.
func tooShort(p string) bool { return len([]rune(strings.TrimSpace(p))) < minPassphrase }

// PassphraseFrom makes Keys.Passphrase from ask: hidden; with confirm it
// asks twice and refuses answers that differ.
func PassphraseFrom(ask Asker) func(prompt string, confirm bool) ([]byte, error) {
	if ask == nil {
		return nil
	}
	return func(prompt string, confirm bool) ([]byte, error) {
		title := prompt
		if confirm {
			title += fmt.Sprintf(" (new: at least %d characters; it cannot be recovered)", minPassphrase)
		}
		p, ok, err := ask(title, true)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrNoPassphrase
		}
		if confirm {
			if tooShort(p) {
				return nil, Input(fmt.Errorf("the passphrase is shorter than %d characters (spaces at its ends not counted)", minPassphrase))
			}
			again, _, err := ask(prompt+" again", true)
			if err != nil {
				return nil, err
			}
			if again != p {
				return nil, Input(errors.New("the two passphrases differ"))
			}
		}
		return []byte(p), nil
	}
}

// Default is the vault of home ($RPA_HOME) as the commands use it: the OS
// keyring (unless RPA_VAULT_KEYRING=off), else RPA_VAULT_PASSPHRASE, else
// ask (nil: nobody to ask).
func Default(home string, ask Asker) *Store {
	return New(home, &Keys{Keyring: OSKeyring(), Passphrase: PassphraseFrom(ask)})
}

// Listed is one account as `rpa vault list --json` and the console show
// it: the index entry and when it was last used (the start of the last
// run holding its lease on this machine).
type Listed struct {
	Info
	LastUsed *time.Time `json:"lastUsed,omitempty"`
	LastRun  string     `json:"lastRun,omitempty"`
}

// WriteList prints accounts as a table: NAME, FIELDS, UPDATED, LAST USED
// (times in local time to the minute).
func WriteList(w io.Writer, l []Listed) error {
	tw := columns.NewWriter(w, 0, 2)
	fmt.Fprintln(tw, "NAME\tFIELDS\tUPDATED\tLAST USED")
	for _, a := range l {
		used := "-"
		if a.LastUsed != nil {
			used = a.LastUsed.Local().Format("2006-01-02 15:04")
			if a.LastRun != "" {
				used += " (" + a.LastRun + ")"
			}
		}
		fields := append([]string(nil), a.Fields...)
		sort.Strings(fields)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, strings.Join(fields, ","), a.Updated.Local().Format("2006-01-02 15:04"), used)
	}
	return tw.Flush()
}

// ReadFile reads an export file for Import, refusing one larger than the
// largest vault can be.
func ReadFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Input(err)
	}
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, Input(fmt.Errorf("%s is a folder, not an export file", path))
	}
	if st.Size() > 64<<20 {
		return nil, Input(fmt.Errorf("%s: %d bytes, larger than any export file", path, st.Size()))
	}
	return os.ReadFile(path)
}
