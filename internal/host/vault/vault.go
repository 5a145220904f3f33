// Package vault is rpa's local credential vault: named accounts
// ("portal/admin") with fields (username, password, a TOTP seed, any other
// field) that flows use through a `credential` param instead of raw
// secrets (docs/spec/LANGUAGE.md), so an agent names an account and never
// sees or sends a password.
//
// The vault is one file, $RPA_HOME/vault/vault.enc (format: seal.go),
// encrypted with AES-256-GCM under a key that lives in the OS keyring where
// there is one (Keys, OSKeyring), else is derived with argon2id from a
// passphrase (RPA_VAULT_PASSPHRASE, else asked once per process). Nothing
// of the accounts, not even their names, is read without the key (List
// refuses a wrong one as Get does); only where the key comes from is in
// clear (KeySource). A vault file of the earlier format, with its index in
// clear, is read too and rewritten in the current one at its next change.
// A tampered, truncated or wrong-key file is refused with a clear error
// (*FileError: ErrDamaged or ErrWrongKey) and never rewritten; every change
// takes the vault's file lock, reads, changes and replaces the file
// atomically (temp + rename), so two processes setting at once both land
// and a process killed mid-write leaves the old vault intact.
package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/totp"
)

// Dir is the vault's folder inside $RPA_HOME; FileName its file there.
const (
	Dir      = "vault"
	FileName = "vault.enc"
	lockName = "vault.lock"
)

// Well-known fields. Any other field name matching FieldPattern may be
// stored too.
const (
	FieldUsername = "username"
	FieldPassword = "password"
	// FieldTOTP holds a TOTP seed: base32 or an otpauth://totp/ URI
	// (package lang/totp); checked when set.
	FieldTOTP = "totp"
)

// Limits of names and values.
const (
	MaxNameLen   = 128
	MaxFields    = 32
	MaxValueLen  = 64 << 10
	lockWaitTime = 30 * time.Second
)

var (
	// NamePattern is an account name: segments of letters, digits, '.',
	// '_', '@' and '-' (starting with a letter or digit) joined by '/'.
	NamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]*(/[A-Za-z0-9][A-Za-z0-9._@-]*)*$`)
	// FieldPattern is a field name, as a flow reads it (account.FIELD).
	FieldPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
)

// Info is what the index says of one account; it holds no value.
type Info struct {
	Name    string    `json:"name"`
	Fields  []string  `json:"fields"` // sorted
	Updated time.Time `json:"updated"`
}

// Has reports whether the account has every field of want.
func (in Info) Has(want ...string) bool {
	for _, w := range want {
		if !slices.Contains(in.Fields, w) {
			return false
		}
	}
	return true
}

// Entry is one account with its values.
type Entry struct {
	Name    string
	Fields  map[string]string
	Updated time.Time
}

// Values returns the entry's values, sorted by field name (what a run
// masks as secrets).
func (e *Entry) Values() []string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, e.Fields[k])
	}
	return out
}

// ErrNotFound matches (errors.Is) a *NotFoundError.
var ErrNotFound = errors.New("no such account")

// NotFoundError is a name the vault does not hold.
type NotFoundError struct {
	Name string
	// Suggest is the closest name the vault holds, or "".
	Suggest string
}

// Error reads `no account "NAME" in the vault` and the closest name.
func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no account %q in the vault", e.Name)
	if e.Suggest != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Suggest)
	}
	return msg
}

// Is reports target == ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Store is the vault of one $RPA_HOME. Safe for concurrent use, in this
// process and across processes.
type Store struct {
	// Dir is the vault folder ($RPA_HOME/vault).
	Dir string
	// Keys finds and makes keys.
	Keys *Keys
	// Now is the clock of Updated (nil: time.Now).
	Now func() time.Time

	mu sync.Mutex // serialises this process's changes (the file lock does across processes)
}

// New returns the vault of the rpa data folder home ($RPA_HOME) with keys.
func New(home string, keys *Keys) *Store {
	return &Store{Dir: filepath.Join(home, Dir), Keys: keys}
}

// Path is the vault file.
func (s *Store) Path() string { return filepath.Join(s.Dir, FileName) }

// CheckName returns why name cannot name an account (marked Input), or nil.
func CheckName(name string) error {
	return Input(checkName(name))
}

func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("the account name is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("the account name is too long (%d bytes; at most %d)", len(name), MaxNameLen)
	case !NamePattern.MatchString(name):
		return fmt.Errorf("bad account name %q: use letters, digits, '.', '_', '@' and '-', segments joined by '/' (portal/admin)", name)
	}
	return nil
}

// CheckFields returns why fields cannot be an account's fields, or nil:
// at least one field, at most MaxFields, names matching FieldPattern,
// values non-empty UTF-8 of at most MaxValueLen bytes, a FieldTOTP value a
// readable seed. Errors name the field, never a value, and are marked Input.
func CheckFields(fields map[string]string) error {
	return Input(checkFields(fields))
}

func checkFields(fields map[string]string) error {
	if len(fields) == 0 {
		return errors.New("no fields (give at least one, such as username and password)")
	}
	if len(fields) > MaxFields {
		return fmt.Errorf("%d fields, at most %d", len(fields), MaxFields)
	}
	for k, v := range fields {
		switch {
		case !FieldPattern.MatchString(k):
			return fmt.Errorf("bad field name %q: lower-case letters, digits and '_', starting with a letter", k)
		case v == "":
			return fmt.Errorf("field %q is empty", k)
		case len(v) > MaxValueLen:
			return fmt.Errorf("field %q is longer than %d bytes", k, MaxValueLen)
		case !utf8.ValidString(v):
			return fmt.Errorf("field %q is not UTF-8 text", k)
		}
		if k == FieldTOTP {
			if _, err := totp.Parse(v, totp.Options{}); err != nil {
				return fmt.Errorf("field %q: %v", k, err)
			}
		}
	}
	return nil
}

// List returns the index: every account's name, field names and update
// time, sorted by name. It needs the key, as Get does (a wrong one is a
// *FileError matching ErrWrongKey, no passphrase ErrNoPassphrase). No
// vault yet is an empty list.
func (s *Store) List() ([]Info, error) {
	_, l, err := s.load()
	if err != nil || l == nil {
		return nil, err
	}
	sortIndex(l.idx)
	return l.idx, nil
}

// KeySource says where the vault's key comes from (SourceKeyring or
// SourcePassphrase), "" when there is no vault yet.
func (s *Store) KeySource() (string, error) {
	b, err := os.ReadFile(s.Path())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	f, err := readHeader(s.Path(), b)
	return f.h.Key.Source, err
}

// NeedsPassphrase reports whether opening or making the vault would need
// a passphrase this process does not have yet (Keys.Give it, or ask): the
// vault's key comes from a passphrase (or there is no vault yet and no
// keyring), and neither RPA_VAULT_PASSPHRASE nor an earlier answer gives
// it.
func (s *Store) NeedsPassphrase() bool {
	if s.Keys.hasPassphrase() {
		return false
	}
	src, err := s.KeySource()
	if err != nil {
		return false // the error shows when the vault is opened
	}
	return src == SourcePassphrase || src == "" && s.Keys.Keyring == nil
}

// Unlock opens the vault once, so its key is known to this process (a
// passphrase given with Keys.Give is checked here). No vault is no error.
func (s *Store) Unlock() error {
	_, _, err := s.load()
	return err
}

// Get returns the account name with its values (a *NotFoundError when the
// vault does not hold it; a name over MaxNameLen bytes is an error giving
// its length, never the name).
func (s *Store) Get(name string) (*Entry, error) {
	if len(name) > MaxNameLen { // no vault holds it; not echoed back
		return nil, CheckName(name)
	}
	_, l, err := s.load()
	if err != nil {
		return nil, err
	}
	if l == nil {
		return nil, s.notFound(name, nil)
	}
	f, ok := l.body[name]
	if !ok {
		return nil, s.notFound(name, l.idx)
	}
	e := &Entry{Name: name, Fields: map[string]string{}}
	for k, v := range f {
		e.Fields[k] = v
	}
	for _, in := range l.idx {
		if in.Name == name {
			e.Updated = in.Updated
		}
	}
	return e, nil
}

func (s *Store) notFound(name string, idx []Info) error {
	names := make([]string, len(idx))
	for i, in := range idx {
		names[i] = in.Name
	}
	return &NotFoundError{Name: name, Suggest: diag.Suggest(name, names)}
}

// loaded is a decrypted vault.
type loaded struct {
	h    header
	key  []byte
	idx  []Info
	body map[string]map[string]string
}

// load reads and decrypts the vault; (nil, nil, nil) when there is none.
func (s *Store) load() ([]byte, *loaded, error) {
	b, err := os.ReadFile(s.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	l, err := s.decrypt(s.Path(), b, nil)
	return b, l, err
}

// decrypt opens file text b (the vault's, or an export's with pass).
func (s *Store) decrypt(path string, b, pass []byte) (*loaded, error) {
	f, err := readHeader(path, b)
	if err != nil {
		return nil, err
	}
	h := f.h
	key, err := s.Keys.keyFor(path, h.Key, pass)
	if err != nil {
		return nil, err
	}
	idx, body, err := open(path, f, key)
	if fe := (*FileError)(nil); errors.As(err, &fe) && fe.kind == ErrWrongKey && pass != nil {
		fe.Msg = "the export file's passphrase is wrong"
	}
	if errors.Is(err, ErrWrongKey) && pass == nil {
		s.Keys.forget(h.Key)
	}
	if err != nil {
		return nil, err
	}
	h.Entries = nil
	return &loaded{h: h, key: key, idx: idx, body: body}, nil
}

// Set stores the account name with fields (checked by CheckName and
// CheckFields). With merge the fields are added to the account's existing
// ones (a field given replaces its old value), else they replace them all.
// The first Set makes the vault and its key (Keys.newKey).
func (s *Store) Set(name string, fields map[string]string, merge bool) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if err := CheckFields(fields); err != nil {
		return err
	}
	return s.change(func(body map[string]map[string]string, now time.Time, touched map[string]bool) error {
		f := map[string]string{}
		if merge {
			for k, v := range body[name] {
				f[k] = v
			}
		}
		for k, v := range fields {
			f[k] = v
		}
		if len(f) > MaxFields {
			return Input(fmt.Errorf("%d fields, at most %d", len(f), MaxFields))
		}
		body[name] = f
		touched[name] = true
		return nil
	})
}

// Remove deletes the account name (a *NotFoundError when the vault does
// not hold it).
func (s *Store) Remove(name string) error {
	return s.change(func(body map[string]map[string]string, _ time.Time, touched map[string]bool) error {
		if _, ok := body[name]; !ok {
			idx := make([]Info, 0, len(body))
			for n := range body {
				idx = append(idx, Info{Name: n})
			}
			return s.notFound(name, idx)
		}
		delete(body, name)
		return nil
	})
}

// change runs edit on the decrypted vault under the vault's file lock and
// writes the result atomically; edit marks the names it changed in
// touched (their Updated becomes now). A vault that cannot be opened is
// left as it is; one of format 1 is written in the current format.
func (s *Store) change(edit func(body map[string]map[string]string, now time.Time, touched map[string]bool) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	_, l, err := s.load()
	if err != nil {
		return err
	}
	if l == nil {
		ki, key, err := s.Keys.newKey()
		if err != nil {
			return err
		}
		l = &loaded{h: header{Key: ki}, key: key, body: map[string]map[string]string{}}
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now().UTC().Truncate(time.Second)
	touched := map[string]bool{}
	if err := edit(l.body, t, touched); err != nil {
		return err
	}
	l.idx = index(l.body, l.idx, touched, t)
	out, err := seal(l.h, l.key, l.idx, l.body)
	if err != nil {
		return err
	}
	return writeFile(s.Path(), out)
}

// writeFile is atomicfile.Write with mode 0600; a variable so a test can
// stop a writer half-way, as a kill would.
var writeFile = func(path string, data []byte) error { return atomicfile.Write(path, data, 0o600) }

// index rebuilds the index of body, keeping the update times of the
// untouched names from old.
func index(body map[string]map[string]string, old []Info, touched map[string]bool, now time.Time) []Info {
	prev := map[string]time.Time{}
	for _, in := range old {
		prev[in.Name] = in.Updated
	}
	out := make([]Info, 0, len(body))
	for name, f := range body {
		in := Info{Name: name, Updated: prev[name]}
		if touched[name] || in.Updated.IsZero() {
			in.Updated = now
		}
		for k := range f {
			in.Fields = append(in.Fields, k)
		}
		sort.Strings(in.Fields)
		out = append(out, in)
	}
	sortIndex(out)
	return out
}

func sortIndex(idx []Info) {
	slices.SortFunc(idx, func(a, b Info) int { return cmp.Compare(a.Name, b.Name) })
}

// lock takes the vault's file lock (waiting up to 30 s for another
// process's change) and removes the temporary files a killed writer left.
func (s *Store) lock() (func(), error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("vault folder: %w", err)
	}
	fl := flock.New(filepath.Join(s.Dir, lockName), flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(context.Background(), lockWaitTime)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("vault lock: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("the vault is being changed by another rpa process (waited %s); try again", lockWaitTime)
	}
	if tmps, _ := filepath.Glob(filepath.Join(s.Dir, "."+FileName+"-*")); len(tmps) > 0 {
		for _, t := range tmps {
			_ = os.Remove(t)
		}
	}
	return func() { _ = fl.Unlock() }, nil
}

// Export returns an export file of the accounts names (all when empty),
// encrypted under pass (argon2id with Keys.KDF's costs) for rpa vault
// import on another desktop.
func (s *Store) Export(names []string, pass []byte) ([]byte, error) {
	if len(pass) == 0 {
		return nil, Input(errors.New("export: the export file needs a passphrase"))
	}
	_, l, err := s.load()
	if err != nil {
		return nil, err
	}
	body := map[string]map[string]string{}
	var idx []Info
	if l != nil {
		for _, in := range l.idx {
			if len(names) == 0 || slices.Contains(names, in.Name) {
				body[in.Name] = l.body[in.Name]
				idx = append(idx, in)
			}
		}
	}
	for _, n := range names {
		if _, ok := body[n]; !ok {
			var have []Info
			if l != nil {
				have = l.idx
			}
			return nil, s.notFound(n, have)
		}
	}
	s.Keys.mu.Lock()
	ki, key := s.Keys.passphraseKey(pass)
	s.Keys.mu.Unlock()
	return seal(header{Key: ki}, key, idx, body)
}

// ImportError is an import that would replace accounts the vault holds.
type ImportError struct{ Names []string }

// Error names the accounts.
func (e *ImportError) Error() string {
	return fmt.Sprintf("the vault already holds %s (import with --overwrite to replace them)", strings.Join(e.Names, ", "))
}

// Import adds the accounts of an export file (data, read from path for
// messages) opened with pass. An account the vault already holds is an
// *ImportError unless overwrite. It returns the names imported.
func (s *Store) Import(path string, data, pass []byte, overwrite bool) ([]string, error) {
	in, err := s.decrypt(path, data, pass)
	if err != nil {
		return nil, err
	}
	for name, f := range in.body {
		if err := CheckName(name); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if err := CheckFields(f); err != nil {
			return nil, fmt.Errorf("%s: account %s: %v", path, name, err)
		}
	}
	var names []string
	err = s.change(func(body map[string]map[string]string, _ time.Time, touched map[string]bool) error {
		var clash []string
		for name := range in.body {
			if _, ok := body[name]; ok && !overwrite {
				clash = append(clash, name)
			}
		}
		if len(clash) > 0 {
			sort.Strings(clash)
			return &ImportError{Names: clash}
		}
		for name, f := range in.body {
			body[name] = f
			touched[name] = true
			names = append(names, name)
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}
