package vault

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
	"golang.org/x/crypto/argon2"
)

// Environment variables the vault reads.
const (
	// EnvPassphrase holds the vault passphrase for machines without an
	// OS keyring (headless servers); read once per process.
	EnvPassphrase = "RPA_VAULT_PASSPHRASE"
	// EnvKeyring set to "off" keeps the vault away from the OS keyring
	// (a new vault then takes a passphrase).
	EnvKeyring = "RPA_VAULT_KEYRING"
)

// KeyringService is the service name of the vault keys in the OS keyring;
// each vault's key is the item "vault-ID" (ID: the vault file's key id).
const KeyringService = "rpa"

// KDF are argon2id's costs (RFC 9106) for a key made from a passphrase.
type KDF struct {
	Time      uint32 // passes
	MemoryKiB uint32
	Threads   uint8
}

// DefaultKDF is RFC 9106's second recommended option (section 4: t=3,
// m=64 MiB, p=4): about 0.1 to 0.3 s on a desktop, once per process.
var DefaultKDF = KDF{Time: 3, MemoryKiB: 64 * 1024, Threads: 4}

// Keyring is the OS keyring as the vault uses it; OSKeyring is the real
// one, tests pass their own.
type Keyring interface {
	// Get returns the secret stored for service and user
	// (keyring.ErrNotFound when there is none).
	Get(service, user string) (string, error)
	// Set stores secret for service and user.
	Set(service, user, secret string) error
}

// keyringTimeout bounds one keyring call: the Secret Service may wait for
// a person to unlock the collection.
const keyringTimeout = 30 * time.Second

// OSKeyring returns the OS keyring through github.com/zalando/go-keyring
// (Secret Service over D-Bus on Linux desktops such as UOS and Kylin, the
// Credential Manager on Windows, the Keychain on macOS; pure Go, no cgo),
// each call bounded by 30 s, or nil when EnvKeyring is "off".
func OSKeyring() Keyring {
	if strings.EqualFold(os.Getenv(EnvKeyring), "off") {
		return nil
	}
	return osKeyring{}
}

type osKeyring struct{}

func (osKeyring) Get(service, user string) (string, error) {
	var s string
	err := bounded(func() (err error) { s, err = keyring.Get(service, user); return })
	return s, err
}

func (osKeyring) Set(service, user, secret string) error {
	return bounded(func() error { return keyring.Set(service, user, secret) })
}

// bounded runs f, giving up after keyringTimeout (f is left to finish on
// its own).
func bounded(f func() error) error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	t := time.NewTimer(keyringTimeout)
	defer t.Stop()
	select {
	case err := <-ch:
		return err
	case <-t.C:
		return fmt.Errorf("the OS keyring did not answer in %s", keyringTimeout)
	}
}

// Keys finds the keys of vault files: from the OS keyring where the file's
// key lives there, else from a passphrase (EnvPassphrase, else
// Passphrase) through argon2id. A key found is kept for the life of the
// process, so a passphrase is asked once. Safe for concurrent use.
type Keys struct {
	// Keyring is the OS keyring (nil: none here).
	Keyring Keyring
	// Passphrase asks a person for a passphrase (nil: nobody to ask).
	// prompt says what for ("Vault passphrase"); confirm asks for it
	// twice (a new one). Return ErrNoPassphrase when nobody can answer.
	Passphrase func(prompt string, confirm bool) ([]byte, error)
	// KDF are the costs for new passphrase keys (zero: DefaultKDF).
	KDF KDF

	mu    sync.Mutex
	pass  []byte            // the vault passphrase, once given
	cache map[string][]byte // keys by keyID
}

// ErrNoPassphrase is the error when a passphrase is needed and neither
// EnvPassphrase nor a person gives one.
var ErrNoPassphrase = errors.New("the vault needs a passphrase: set " + EnvPassphrase + " or run on a terminal")

// Give sets the vault passphrase of this process (a person typed it into
// the console): used from now on instead of asking. A wrong one is
// forgotten at the first file it fails to open.
func (k *Keys) Give(pass []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pass = append([]byte(nil), pass...)
}

// hasPassphrase reports whether a passphrase is known without asking.
func (k *Keys) hasPassphrase() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.pass != nil || os.Getenv(EnvPassphrase) != ""
}

// keyID identifies a file's key for the cache.
func keyID(k keyInfo) string {
	if k.Source == SourceKeyring {
		return "keyring:" + k.ID
	}
	return fmt.Sprintf("argon2id:%x:%d:%d:%d", k.Salt, k.Time, k.MemoryKiB, k.Threads)
}

// vaultPassphrase is the vault's passphrase: given before, else from
// EnvPassphrase, else asked (confirm: twice).
func (k *Keys) vaultPassphrase(confirm bool) ([]byte, error) {
	if k.pass != nil {
		return k.pass, nil
	}
	if p := os.Getenv(EnvPassphrase); p != "" {
		// a new vault's passphrase has the rule of one asked on the
		// terminal (PassphraseFrom): a vault created with " " was
		// accepted before; an existing vault opens with what it has
		if confirm && tooShort(p) {
			return nil, Input(fmt.Errorf("%s is shorter than %d characters (spaces at its ends not counted): a new vault needs a longer passphrase", EnvPassphrase, minPassphrase))
		}
		k.pass = []byte(p)
		return k.pass, nil
	}
	if k.Passphrase == nil {
		return nil, ErrNoPassphrase
	}
	p, err := k.Passphrase("Vault passphrase", confirm)
	if errors.Is(err, ErrNoTerminal) {
		// Say what was wanted, not only that nobody could be asked.
		return nil, fmt.Errorf("%w (%v)", ErrNoPassphrase, err)
	}
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, ErrNoPassphrase
	}
	k.pass = p
	return p, nil
}

// keyFor returns the key of a file with this key info; pass, when non-nil,
// is the passphrase to use (an export file's), else the vault's.
func (k *Keys) keyFor(path string, ki keyInfo, pass []byte) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	id := keyID(ki)
	if pass == nil {
		if key := k.cache[id]; key != nil {
			return key, nil
		}
	}
	var key []byte
	switch ki.Source {
	case SourceKeyring:
		if k.Keyring == nil {
			return nil, &FileError{Path: path, kind: ErrWrongKey,
				Msg: "its key is in the OS keyring, which is not used here (" + EnvKeyring + "=off, or no keyring); open the vault where it was made and move it with rpa vault export"}
		}
		s, err := k.Keyring.Get(KeyringService, "vault-"+ki.ID)
		if err != nil {
			if errors.Is(err, keyring.ErrNotFound) {
				return nil, &FileError{Path: path, kind: ErrWrongKey, Msg: "its key is not in this user's OS keyring (vault-" + ki.ID + "); move a vault to another desktop with rpa vault export and import"}
			}
			return nil, fmt.Errorf("%s: the OS keyring: %w", path, err)
		}
		key, err = base64.StdEncoding.DecodeString(s)
		if err != nil || len(key) != keyLen {
			return nil, &FileError{Path: path, kind: ErrWrongKey, Msg: "the OS keyring's entry vault-" + ki.ID + " is not a vault key"}
		}
	case SourcePassphrase:
		if ki.KDF != "argon2id" || len(ki.Salt) < 16 || ki.Time == 0 || ki.MemoryKiB < 8*1024 || ki.Threads == 0 ||
			ki.Time > 100 || ki.MemoryKiB > 4*1024*1024 {
			return nil, damaged(path, "the file was altered (its key parameters are not valid)")
		}
		p := pass
		if p == nil {
			var err error
			if p, err = k.vaultPassphrase(false); err != nil {
				return nil, err
			}
		}
		key = argon2.IDKey(p, ki.Salt, ki.Time, ki.MemoryKiB, ki.Threads, keyLen)
	default:
		return nil, damaged(path, fmt.Sprintf("the file was altered (unknown key source %q)", ki.Source))
	}
	if pass == nil {
		if k.cache == nil {
			k.cache = map[string][]byte{}
		}
		k.cache[id] = key
	}
	return key, nil
}

// forget drops a cached key that turned out wrong (and the passphrase
// that made it), so the next try asks again.
func (k *Keys) forget(ki keyInfo) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.cache, keyID(ki))
	if ki.Source == SourcePassphrase {
		k.pass = nil
	}
}

// newKey makes the key of a new vault: a random key kept in the OS keyring
// when there is one that takes it, else one from the vault passphrase
// (asked twice when a person gives it).
func (k *Keys) newKey() (keyInfo, []byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.Keyring != nil {
		key := make([]byte, keyLen)
		id := make([]byte, 8)
		_, _ = rand.Read(key)
		_, _ = rand.Read(id)
		ki := keyInfo{Source: SourceKeyring, ID: hex.EncodeToString(id)}
		if err := k.Keyring.Set(KeyringService, "vault-"+ki.ID, base64.StdEncoding.EncodeToString(key)); err == nil {
			if k.cache == nil {
				k.cache = map[string][]byte{}
			}
			k.cache[keyID(ki)] = key
			return ki, key, nil
		}
	}
	p, err := k.vaultPassphrase(true)
	if err != nil {
		return keyInfo{}, nil, err
	}
	ki, key := k.passphraseKey(p)
	if k.cache == nil {
		k.cache = map[string][]byte{}
	}
	k.cache[keyID(ki)] = key
	return ki, key, nil
}

// passphraseKey derives a new key from p with a fresh salt.
func (k *Keys) passphraseKey(p []byte) (keyInfo, []byte) {
	c := k.KDF
	if c == (KDF{}) {
		c = DefaultKDF
	}
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	ki := keyInfo{Source: SourcePassphrase, KDF: "argon2id", Salt: salt, Time: c.Time, MemoryKiB: c.MemoryKiB, Threads: c.Threads}
	return ki, argon2.IDKey(p, salt, c.Time, c.MemoryKiB, c.Threads, keyLen)
}
