package runs

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/rpa-dev/rpa/internal/atomicfile"
)

// When Open checks the database (PRAGMA quick_check reads every page: on a
// store of 10,000 runs it was ~90% of an open, 0.2 s of every `rpa run`
// start, BenchmarkOpen10k). SQLite's write-ahead log keeps the file
// consistent through a killed process, so what the check is for is a file
// damaged from outside (a bad copy, the disk, another program). Open skips
// it when the file is known sound:
//
//   - a Store that is open registers in runs/open/ (an empty file named
//     by its process: pid, start time, a number) and removes its entry at
//     Close. An entry whose process is gone (killed, crashed) is an
//     unclean shutdown: the next Open checks, then removes the entry;
//   - while another live process holds the store (and none died), the
//     file is as the SQLite of those processes keeps it: no check;
//   - the last Store to close (no entry left, the WAL file gone) writes
//     runs.db.clean (atomically): the file's size, modification time and a
//     digest of its first and last 4 KiB. With nothing open, Open trusts
//     the file only when it is still exactly that; any other state (no
//     marker, a WAL file left, a file changed since) is checked.
//
// rpa doctor (CheckStore) always checks. A page damaged in place while its
// size and time stay (the disk) is found when a query reads it, or by rpa
// doctor.

// cleanName is the marker of a clean close, beside DBName.
const cleanName = DBName + ".clean"

// holdersDir is the folder of the open Stores' entries, in the store's folder.
const holdersDir = "open"

// cleanMark is what runs.db was when its last Store closed.
type cleanMark struct {
	Size    int64  `json:"size"`
	ModNano int64  `json:"modNano"`
	Digest  string `json:"digest"` // sha256 of the first and last 4 KiB, hex
}

// markOf describes the database file at path, ok false when it cannot be
// trusted as closed: missing, unreadable, or with a write-ahead log beside
// it holding something.
func markOf(path string) (m cleanMark, ok bool) {
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return m, false
	}
	f, err := os.Open(path)
	if err != nil {
		return m, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return m, false
	}
	h := sha256.New()
	const edge = 4096
	if _, err := io.CopyN(h, f, edge); err != nil && !errors.Is(err, io.EOF) {
		return m, false
	}
	if fi.Size() > edge {
		last := make([]byte, edge)
		n, err := f.ReadAt(last, max(fi.Size()-edge, edge))
		if err != nil && !errors.Is(err, io.EOF) {
			return m, false
		}
		h.Write(last[:n])
	}
	return cleanMark{Size: fi.Size(), ModNano: fi.ModTime().UnixNano(), Digest: fmt.Sprintf("%x", h.Sum(nil))}, true
}

// holder is one open Store's entry in runs/open.
type holder struct {
	o    owner
	name string
}

// holders lists the entries of runs/open (the folder made when missing).
func holders(dir string) ([]holder, error) {
	hd := filepath.Join(dir, holdersDir)
	if err := os.MkdirAll(hd, 0o700); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(hd)
	if err != nil {
		return nil, err
	}
	var hs []holder
	for _, e := range ents {
		var h holder
		var n int64
		if _, err := fmt.Sscanf(e.Name(), "%d-%d-%d", &h.o.pid, &h.o.start, &n); err != nil {
			continue // not an entry of ours (an atomic write's temporary file)
		}
		h.name = e.Name()
		hs = append(hs, h)
	}
	return hs, nil
}

// holderSeq numbers the Stores a process opens.
var holderSeq atomic.Int64

// needsCheck reports whether open must check the database of dir, and
// returns the entries of processes that are gone (to remove once it is
// checked).
func needsCheck(dir string) (check bool, dead []string) {
	hs, err := holders(dir)
	if err != nil {
		return true, nil
	}
	live := 0
	me := self()
	for _, h := range hs {
		if h.o == me || alive(h.o) {
			live++
		} else {
			dead = append(dead, h.name)
		}
	}
	if len(dead) > 0 {
		return true, dead // an unclean shutdown
	}
	if live > 0 {
		return false, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, cleanName))
	if err != nil {
		return true, nil
	}
	var was cleanMark
	now, ok := markOf(filepath.Join(dir, DBName))
	return !ok || json.Unmarshal(b, &was) != nil || was != now, nil
}

// register adds the Store's entry to runs/open and returns its name ("" when
// it cannot: the next Open then finds no marker it can trust, and checks).
func register(dir string, me owner) string {
	name := fmt.Sprintf("%d-%d-%d", me.pid, me.start, holderSeq.Add(1))
	f, err := os.OpenFile(filepath.Join(dir, holdersDir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return ""
	}
	f.Close()
	return name
}

// unregister removes the Store's entry and, when it was the last and the
// database is closed (no write-ahead log left), writes the clean marker.
func unregister(dir, name string) {
	if name == "" {
		return
	}
	_ = os.Remove(filepath.Join(dir, holdersDir, name))
	if hs, err := holders(dir); err != nil || len(hs) > 0 {
		return
	}
	m, ok := markOf(filepath.Join(dir, DBName))
	if !ok {
		return
	}
	b, _ := json.Marshal(m)
	// Not synced: after a power cut the marker may be the old one (then it
	// does not match, and Open checks) or gone; the database itself was
	// synced by its last checkpoint.
	_ = atomicfile.WriteNoSync(filepath.Join(dir, cleanName), b, 0o600)
}

// forget removes the clean marker and the entries of processes that are
// gone: called once the database was checked (or moved aside).
func forget(dir string, dead []string) {
	_ = os.Remove(filepath.Join(dir, cleanName))
	for _, n := range dead {
		_ = os.Remove(filepath.Join(dir, holdersDir, n))
	}
}
