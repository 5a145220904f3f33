package runs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// IDLayout is the time part of a run ID: the start in UTC to the
// millisecond. A run ID is that time, a dash and 4 random hex digits,
// e.g. "20261201T125300123-a1b2" (23 characters). IDs sort as their start
// times (ties within one millisecond are broken by the random part; one
// process never hands out the same millisecond twice).
const IDLayout = "20060102T150405.000"

var (
	idMu   sync.Mutex
	idLast time.Time
)

// NewID returns a fresh run ID for a run starting at t.
func NewID(t time.Time) string {
	t = t.UTC().Truncate(time.Millisecond)
	idMu.Lock()
	if !t.After(idLast) {
		t = idLast.Add(time.Millisecond)
	}
	idLast = t
	idMu.Unlock()
	var b [2]byte
	_, _ = rand.Read(b[:])
	ts := t.Format(IDLayout)
	return ts[:15] + ts[16:] + "-" + hex.EncodeToString(b[:])
}

// ValidID reports why id is not a run ID (it must have NewID's shape, so
// it is safe as a folder name and in a URI), or nil; the error quotes id
// with echoID (a long one is named by its length).
func ValidID(id string) error {
	if len(id) != 23 || id[8] != 'T' || id[18] != '-' {
		return fmt.Errorf("%s is not a run ID (want the form 20261201T125300123-a1b2)", echoID(id))
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 18:
		case i < 18 && c >= '0' && c <= '9':
		case i > 18 && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f'):
		default:
			return fmt.Errorf("%s is not a run ID (want the form 20261201T125300123-a1b2)", echoID(id))
		}
	}
	return nil
}

// echoID is id quoted for an error, or named by its length when longer
// than 200 bytes: lang.Echo's rule (runs sits below lang in layers.Rules,
// so it cannot call it).
func echoID(id string) string {
	if len(id) > 200 {
		return fmt.Sprintf("a text too long to show (%d bytes)", len(id))
	}
	return strconv.Quote(id)
}

// IDTime returns the start time encoded in a run ID (zero when id is not
// one).
func IDTime(id string) time.Time {
	if ValidID(id) != nil {
		return time.Time{}
	}
	t, err := time.Parse(IDLayout, id[:15]+"."+id[15:18])
	if err != nil {
		return time.Time{}
	}
	return t
}
