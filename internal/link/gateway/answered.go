package gateway

import (
	"strconv"
	"strings"
	"sync"
)

// One answer per call id, the first one: a desktop answers each request once, but a buggy or
// hostile one could send a second answer to a call it was sent and already answered (its agent
// got the first), and the gateway would keep that one as a late answer (late.go) and list it as
// a resource. answeredIDs remembers which call ids got their answer, so a later one is dropped.
//
// Ids of this gateway process ("gw-EPOCH-SEQ-MAC" with its own EPOCH) are remembered exactly, a
// bit per SEQ, over the last answeredWindow ids issued (128 KiB); ids of earlier processes or of
// other replicas (an answer that reached this replica for a call made elsewhere) in a set of the
// last answeredOthers. An id older than both is judged by the late store alone (which keeps an
// answer once per call id while it keeps it).

// answeredWindow is how many of this process's latest call ids answeredIDs remembers exactly.
const answeredWindow = 1 << 20

// answeredOthers is how many other processes' call ids answeredIDs remembers.
const answeredOthers = 4096

// answeredIDs is the set of call ids whose answer came (see above).
type answeredIDs struct {
	epoch string // this process's

	mu    sync.Mutex
	bits  []uint64 // bit SEQ%answeredWindow: SEQ answered (for SEQ in (hi-answeredWindow, hi])
	hi    uint64   // the highest SEQ of this process seen so far
	other map[string]bool
	order []string // other's ids, oldest first
}

// first reports whether an answer to id is its first one, and remembers that id has one now.
// An id of this process older than the window, or another process's id forgotten since, counts
// as a first answer.
func (a *answeredIDs) first(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if seq, ok := a.seqOf(id); ok {
		return a.firstSeq(seq)
	}
	if a.other == nil {
		a.other = map[string]bool{}
	}
	if a.other[id] {
		return false
	}
	if len(a.order) >= answeredOthers {
		delete(a.other, a.order[0])
		a.order = a.order[1:]
	}
	a.other[id] = true
	a.order = append(a.order, id)
	return true
}

// has reports whether id had its answer (without marking it).
func (a *answeredIDs) has(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if seq, ok := a.seqOf(id); ok {
		return a.bits != nil && seq <= a.hi && a.hi-seq < answeredWindow && a.bits[(seq%answeredWindow)/64]&(1<<(seq%64)) != 0
	}
	return a.other[id]
}

// own reports whether id is a call id of this process.
func (a *answeredIDs) own(id string) bool {
	_, ok := a.seqOf(id)
	return ok
}

// seqOf returns the SEQ of an id of this process.
func (a *answeredIDs) seqOf(id string) (uint64, bool) {
	rest, ok := strings.CutPrefix(id, "gw-"+a.epoch+"-")
	if !ok || a.epoch == "" {
		return 0, false
	}
	s, _, _ := strings.Cut(rest, "-")
	seq, err := strconv.ParseUint(s, 10, 64)
	return seq, err == nil
}

func (a *answeredIDs) firstSeq(seq uint64) bool {
	if a.bits == nil {
		a.bits = make([]uint64, answeredWindow/64)
	}
	switch {
	case seq > a.hi:
		// The window moves up: the slots of the SEQs it takes in held SEQs answeredWindow
		// lower; clear them.
		if seq-a.hi >= answeredWindow {
			clear(a.bits)
		} else {
			for s := a.hi + 1; s <= seq; s++ {
				a.bits[(s%answeredWindow)/64] &^= 1 << (s % 64)
			}
		}
		a.hi = seq
	case a.hi-seq >= answeredWindow:
		return true // older than the window: not known
	}
	i, bit := (seq%answeredWindow)/64, uint64(1)<<(seq%64)
	if a.bits[i]&bit != 0 {
		return false
	}
	a.bits[i] |= bit
	return true
}
