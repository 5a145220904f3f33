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
// Close leaves its file behind: List and Register (the next start of any
// registering process) remove the files whose process is gone, so the next
// start comes up clean. An entry carries its process's start mark
// (home.ProcessStart), so a pid the system gave a later process does not
// keep a stale file alive (where the mark cannot be read, macOS, the pid
// alone decides).
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
	"github.com/rpa-dev/rpa/internal/host/home"
)

// DirName is the registry folder inside $RPA_HOME.
const DirName = "ctl"

// Entry kinds.
const (
	// KindConsole is an `rpa ui` console taking questions (Addr and Token
	// required).
	KindConsole = "console"
	// KindServe is a process serving flows to agents (rpa serve, rpa
	// connect, rpa ui --serve-http/--connect): what it serves, for the
	// consoles' Status page. It has no endpoint.
	KindServe = "serve"
	// KindUI is an `rpa ui` process for its whole life, whether a page of
	// it is open or not: its URL (without the token), so that a question
	// no console took can say where the console is.
	KindUI = "ui"
)

// Entry is one registered process.
type Entry struct {
	// Kind says what the process offers (KindConsole).
	Kind string `json:"kind"`
	// PID is the process's id.
	PID int `json:"pid"`
	// Addr is the loopback host:port of its control endpoint.
	Addr string `json:"addr,omitempty"`
	// Token authenticates a request to Addr (Authorization: Bearer TOKEN).
	Token string `json:"token,omitempty"`
	// Started is when the entry was registered (UTC).
	Started time.Time `json:"started"`
	// ProcStart is the process's start mark (home.ProcessStart) when it
	// could be read: an entry whose pid now runs another process is stale.
	ProcStart string `json:"procStart,omitempty"`
	// URL is a KindUI console's address for people, without its token
	// ("http://127.0.0.1:8731/").
	URL string `json:"url,omitempty"`
	// Program describes the process for people ("rpa ui").
	Program string `json:"program,omitempty"`
	// Serves lists what a serving process serves, for people ("MCP over
	// Streamable HTTP at 127.0.0.1:8080"); never a token.
	Serves []string `json:"serves,omitempty"`
	// Gateway is the backend a serving process links to (its URL without
	// credentials or query) and GatewayState the link's state (dialing,
	// connected, ...).
	Gateway      string `json:"gateway,omitempty"`
	GatewayState string `json:"gatewayState,omitempty"`
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
	path    string
	kind    string
	pid     int
	started time.Time
	// procStart is the entry's ProcStart, kept across Updates.
	procStart string
	mu        sync.Mutex
	closed    bool
}

// Register writes e (PID defaults to this process, Started to now) as
// home/ctl/KIND-PID.json. Kind must be a lower-case word and Addr and Token
// must be set; the error names the missing field.
func Register(home string, e Entry) (*Registration, error) {
	if e.Kind == "" || strings.Trim(e.Kind, "abcdefghijklmnopqrstuvwxyz") != "" {
		return nil, fmt.Errorf("localctl: kind %q: want a lower-case word", e.Kind)
	}
	if e.Kind == KindConsole && (e.Addr == "" || e.Token == "") {
		return nil, errors.New("localctl: a console entry needs addr and token")
	}
	if e.PID == 0 {
		e.PID = os.Getpid()
	}
	if e.Started.IsZero() {
		e.Started = time.Now().UTC()
	}
	if e.ProcStart == "" {
		e.ProcStart = procStart(e.PID)
	}
	dir := Dir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("localctl: %w", err)
	}
	_, _ = List(home, "") // removes the files of processes that are gone (a kill -9 leaves them)
	r := &Registration{path: filepath.Join(dir, e.Kind+"-"+strconv.Itoa(e.PID)+".json"), kind: e.Kind, pid: e.PID, started: e.Started, procStart: e.ProcStart}
	if err := r.Update(e); err != nil {
		return nil, err
	}
	return r, nil
}

// Update rewrites the entry as e; its Kind, PID, Started and ProcStart stay
// those registered. After Close it does nothing.
func (r *Registration) Update(e Entry) error {
	e.Kind, e.PID, e.Started, e.ProcStart = r.kind, r.pid, r.started, r.procStart
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if err := atomicfile.Write(r.path, b, 0o600); err != nil {
		return fmt.Errorf("localctl: %w", err)
	}
	return nil
}

// Path is the entry's file.
func (r *Registration) Path() string { return r.path }

// Close removes the entry's file; calling it again does nothing.
func (r *Registration) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if err := os.Remove(r.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// List returns the entries of kind ("" for all) whose process is running,
// newest first. Files of processes that are gone (Running) are removed;
// unreadable or malformed files are skipped. A missing folder is no
// entries, not an error.
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
		if json.Unmarshal(b, &e) != nil || e.PID <= 0 || (e.Kind == KindConsole && e.Addr == "") {
			continue
		}
		if !Running(e) {
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

// Alive reports whether a process with this pid is running (a zombie
// counts as gone): home.ProcessAlive, which the profile locks use too.
func Alive(pid int) bool { return home.ProcessAlive(pid) }

// procStart is pid's home.ProcessStart, "" when it cannot be read.
func procStart(pid int) string {
	m, _ := home.ProcessStart(pid)
	return m
}

// Running reports whether e's process still runs: its pid is alive and, when
// both marks can be read, started when e's did (else the pid was given to
// a later process and e is stale).
func Running(e Entry) bool {
	if !Alive(e.PID) {
		return false
	}
	if e.ProcStart == "" {
		return true
	}
	now, ok := home.ProcessStart(e.PID)
	return !ok || now == e.ProcStart
}
