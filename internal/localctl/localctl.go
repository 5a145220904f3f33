// Package localctl is rpa's local control registry: processes of rpa on one
// $RPA_HOME find each other through it. A process that serves something to
// the other local processes (the console of `rpa ui`, which takes their
// human-in-the-loop questions) writes one small JSON file,
// $RPA_HOME/ctl/KIND-PID.json, holding its loopback address and a random
// token; the others read the folder, skip the files of dead processes and
// talk to the address with the token (docs/spec/PROTOCOL.md, "Local
// console").
//
// A file is written atomically (temp + rename) with mode 0600, so only the
// same user reads the token, and removed by Close. A process killed before
// Close leaves its file behind: List ignores (and removes) files whose pid is
// no longer running, so the next start comes up clean. A reused pid may make
// a stale file look alive: its address then refuses the connection and the
// caller treats the entry as unreachable.
package localctl

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/atomicfile"
)

// DirName is the registry folder inside $RPA_HOME.
const DirName = "ctl"

// KindConsole is the kind of the entry of an `rpa ui` console.
const KindConsole = "console"

// Entry is one registered process.
type Entry struct {
	// Kind says what the process offers (KindConsole).
	Kind string `json:"kind"`
	// PID is the process's id.
	PID int `json:"pid"`
	// Addr is the loopback host:port of its control endpoint.
	Addr string `json:"addr"`
	// Token authenticates a request to Addr (Authorization: Bearer TOKEN).
	Token string `json:"token"`
	// Started is when the entry was registered (UTC).
	Started time.Time `json:"started"`
	// Program describes the process for people ("rpa ui").
	Program string `json:"program,omitempty"`
}

// Dir is the registry folder of home ($RPA_HOME/ctl).
func Dir(home string) string { return filepath.Join(home, DirName) }

// NewToken returns 32 random bytes in hex.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// Registration is this process's entry in the registry.
type Registration struct {
	path string
	once sync.Once
}

// Register writes e (PID defaults to this process, Started to now) as
// home/ctl/KIND-PID.json. Kind must be a lower-case word and Addr and Token
// must be set; the error names the missing field.
func Register(home string, e Entry) (*Registration, error) {
	if e.Kind == "" || strings.Trim(e.Kind, "abcdefghijklmnopqrstuvwxyz") != "" {
		return nil, fmt.Errorf("localctl: kind %q: want a lower-case word", e.Kind)
	}
	if e.Addr == "" || e.Token == "" {
		return nil, errors.New("localctl: an entry needs addr and token")
	}
	if e.PID == 0 {
		e.PID = os.Getpid()
	}
	if e.Started.IsZero() {
		e.Started = time.Now().UTC()
	}
	dir := Dir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("localctl: %w", err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, e.Kind+"-"+strconv.Itoa(e.PID)+".json")
	if err := atomicfile.Write(p, b, 0o600); err != nil {
		return nil, fmt.Errorf("localctl: %w", err)
	}
	return &Registration{path: p}, nil
}

// Path is the entry's file.
func (r *Registration) Path() string { return r.path }

// Close removes the entry's file; calling it again does nothing.
func (r *Registration) Close() error {
	var err error
	r.once.Do(func() {
		if e := os.Remove(r.path); e != nil && !errors.Is(e, os.ErrNotExist) {
			err = e
		}
	})
	return err
}

// List returns the entries of kind ("" for all) whose process is running,
// newest first. Files of dead processes are removed; unreadable or malformed
// files are skipped. A missing folder is no entries, not an error.
func List(home, kind string) ([]Entry, error) {
	ents, err := os.ReadDir(Dir(home))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("localctl: %w", err)
	}
	var out []Entry
	for _, de := range ents {
		name := de.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		if kind != "" && !strings.HasPrefix(name, kind+"-") {
			continue
		}
		p := filepath.Join(Dir(home), name)
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var e Entry
		if json.Unmarshal(b, &e) != nil || e.PID <= 0 || e.Addr == "" {
			continue
		}
		if !Alive(e.PID) {
			_ = os.Remove(p)
			continue
		}
		if kind != "" && e.Kind != kind {
			continue
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}
