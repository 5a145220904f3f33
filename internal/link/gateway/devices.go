package gateway

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/rpa-dev/rpa/internal/atomicfile"
)

// DeviceTokens holds each desktop's own credential: a token per device id, kept as the SHA-256
// of the token in a text file (docs/gateway.md, "Device credentials"):
//
//	# comment
//	office-pc-7 sha256:3c1f…(64 hex digits)
//
// One line per device: the device id (1-128 characters, no spaces), then `sha256:` and the hex
// SHA-256 of its token. Ids and tokens are unique. A token names its device: a desktop presenting
// it may only register under that id. The file is read again when it changes (size or
// modification time), so devices can be added or revoked without restarting the gateway.
type DeviceTokens struct {
	path string

	mu     sync.Mutex
	mod    time.Time
	size   int64
	byHash map[[sha256.Size]byte]string // token hash → device id
	err    error                        // the last reload's error (the previous table stays)
}

// LoadDeviceTokens reads a device token file. Errors name the file and line.
func LoadDeviceTokens(path string) (*DeviceTokens, error) {
	d := &DeviceTokens{path: path}
	if err := d.reload(true); err != nil {
		return nil, err
	}
	return d, nil
}

// Owner returns the device id whose token this is. The file is re-read first when it changed;
// a file that became unreadable or invalid keeps the table last loaded (and Err reports why).
func (d *DeviceTokens) Owner(token string) (string, bool) {
	_ = d.reload(false)
	sum := sha256.Sum256([]byte(token))
	d.mu.Lock()
	defer d.mu.Unlock()
	id, ok := d.byHash[sum]
	return id, ok && token != ""
}

// Admits reports whether the file (re-read first when it changed) still gives device id the
// token whose SHA-256 is sum: false once its line was removed or changed (the device revoked).
func (d *DeviceTokens) Admits(sum [sha256.Size]byte, id string) bool {
	_ = d.reload(false)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.byHash[sum] == id
}

// Entries returns the file's devices (re-read first when it changed): device id → "sha256:HEX".
func (d *DeviceTokens) Entries() map[string]string {
	_ = d.reload(false)
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]string, len(d.byHash))
	for sum, id := range d.byHash {
		out[id] = "sha256:" + hex.EncodeToString(sum[:])
	}
	return out
}

// Len is the number of devices known.
func (d *DeviceTokens) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.byHash)
}

// Err is the error of the last reload, nil when the file loaded.
func (d *DeviceTokens) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *DeviceTokens) reload(force bool) error {
	st, err := os.Stat(d.path)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.err = fmt.Errorf("device tokens: %w", err)
		return d.err
	}
	if !force && st.ModTime().Equal(d.mod) && st.Size() == d.size {
		return nil
	}
	data, err := os.ReadFile(d.path)
	if err != nil {
		d.err = fmt.Errorf("device tokens: %w", err)
		return d.err
	}
	table, err := parseDeviceTokens(d.path, data)
	if err != nil {
		d.err = err
		return err
	}
	d.byHash, d.mod, d.size, d.err = table, st.ModTime(), st.Size(), nil
	return nil
}

// parseDeviceTokens parses the file format of DeviceTokens.
func parseDeviceTokens(name string, data []byte) (map[[sha256.Size]byte]string, error) {
	table := map[[sha256.Size]byte]string{}
	ids := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want `DEVICE-ID sha256:HEX`, got %d fields", name, n, len(f))
		}
		id, h := f[0], f[1]
		if err := ValidDeviceID(id); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		hexSum, ok := strings.CutPrefix(h, "sha256:")
		raw, err := hex.DecodeString(hexSum)
		if !ok || err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("%s:%d: device %q: the credential must be sha256: and 64 hex digits (the SHA-256 of its token, never the token itself)", name, n, id)
		}
		if prev, dup := ids[id]; dup {
			return nil, fmt.Errorf("%s:%d: device %q is already listed on line %d", name, n, id, prev)
		}
		var sum [sha256.Size]byte
		copy(sum[:], raw)
		if other, dup := table[sum]; dup {
			return nil, fmt.Errorf("%s:%d: device %q has the same token as %q: each device needs its own", name, n, id, other)
		}
		ids[id] = n
		table[sum] = id
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return table, nil
}

// ValidDeviceID checks a device id: 1-128 printable characters without spaces.
func ValidDeviceID(id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("device id %q: want 1-128 characters", id)
	}
	for _, r := range id {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("device id %q: no spaces or control characters", id)
		}
	}
	return nil
}

// AddDeviceCmd is `rpa gateway --devices PATH --add-device ID`: it adds device id to the file
// (AddDevice), says so on stderr and prints the token, once, on stdout.
func AddDeviceCmd(path, id string, stdout, stderr io.Writer) error {
	if path == "" {
		return errors.New("--add-device needs --devices FILE")
	}
	tok, err := AddDevice(path, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "rpa gateway: added device %q to %s; its token (shown once, only its hash is kept):\n", id, path)
	_, err = fmt.Fprintln(stdout, tok)
	return err
}

// AddDevice creates a fresh random token for id, appends its line to the device token file at
// path (creating the file, mode 0600; written to a temporary file and renamed, so a crash never
// leaves it half-written) and returns the token. The token is shown once: only its hash is kept.
func AddDevice(path, id string) (string, error) {
	if err := ValidDeviceID(id); err != nil {
		return "", err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	table, err := parseDeviceTokens(path, old)
	if err != nil {
		return "", err
	}
	for _, have := range table {
		if have == id {
			return "", fmt.Errorf("device %q is already in %s (remove its line to issue a new token)", id, path)
		}
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b[:])
	sum := sha256.Sum256([]byte(token))
	var out bytes.Buffer
	if len(old) == 0 {
		out.WriteString("# rpa gateway device tokens: DEVICE-ID sha256:SHA256-OF-ITS-TOKEN (docs/gateway.md)\n")
	} else {
		out.Write(old)
		if old[len(old)-1] != '\n' {
			out.WriteByte('\n')
		}
	}
	fmt.Fprintf(&out, "%s sha256:%s\n", id, hex.EncodeToString(sum[:]))
	if err := atomicfile.Write(path, out.Bytes(), 0o600); err != nil {
		return "", err
	}
	return token, nil
}
