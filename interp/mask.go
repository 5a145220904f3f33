package interp

import (
	"bytes"
	"encoding/json"
	"html"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Mask is the one masker of a run: every secret value (secret params,
// password answers, values read from password fields) registered with Add
// is replaced by "***" in every string shown: result outputs, step
// outputs, errors, log lines and events, also inside longer strings
// (interpolations, a page's error text).
type Mask struct {
	mu      sync.RWMutex
	secrets []string // longest first
	rep     *strings.Replacer
}

// Masked is what a secret is shown as.
const Masked = "***"

// Add registers s as a secret ("" is ignored). Its JSON-, URL- and
// HTML-escaped spellings are registered too, so a secret inside JSON text,
// a URL or markup (a page's error text, html output) is caught as well.
func (m *Mask) Add(s string) {
	if s == "" || s == Masked {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	add := func(x string) {
		for _, have := range m.secrets {
			if have == x {
				return
			}
		}
		m.secrets = append(m.secrets, x)
	}
	add(s)
	if b, err := json.Marshal(s); err == nil { // & < > as \u0026 ...
		add(string(b[1 : len(b)-1]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		b := bytes.TrimSpace(buf.Bytes())
		add(string(b[1 : len(b)-1]))
	}
	add(url.QueryEscape(s))
	add(url.PathEscape(s))
	add(html.EscapeString(s))
	sort.SliceStable(m.secrets, func(i, j int) bool { return len(m.secrets[i]) > len(m.secrets[j]) })
	pairs := make([]string, 0, 2*len(m.secrets))
	for _, x := range m.secrets {
		pairs = append(pairs, x, Masked)
	}
	m.rep = strings.NewReplacer(pairs...)
}

// IsSecret reports whether s is a registered secret (exactly).
func (m *Mask) IsSecret(s string) bool {
	if m == nil || s == "" {
		return false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, x := range m.secrets {
		if x == s {
			return true
		}
	}
	return false
}

// Empty reports whether no secret is registered.
func (m *Mask) Empty() bool {
	if m == nil {
		return true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.rep == nil
}

// String masks every secret inside s.
func (m *Mask) String(s string) string {
	if m == nil {
		return s
	}
	m.mu.RLock()
	rep := m.rep
	m.mu.RUnlock()
	if rep == nil || s == "" {
		return s
	}
	return rep.Replace(s)
}

// Value returns v with every string inside it (map keys too) masked. It
// copies only what changes; v itself is never modified.
func (m *Mask) Value(v any) any {
	if m.Empty() {
		return v
	}
	out, _ := m.value(v)
	return out
}

func (m *Mask) value(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		y := m.String(x)
		return y, y != x
	case []any:
		var cp []any
		for i, e := range x {
			if me, changed := m.value(e); changed {
				if cp == nil {
					cp = append([]any(nil), x...)
				}
				cp[i] = me
			}
		}
		if cp != nil {
			return cp, true
		}
	case []string:
		var cp []string
		for i, e := range x {
			if me := m.String(e); me != e {
				if cp == nil {
					cp = append([]string(nil), x...)
				}
				cp[i] = me
			}
		}
		if cp != nil {
			return cp, true
		}
	case map[string]any:
		changed := false
		for k, e := range x {
			if _, c := m.value(e); c || m.String(k) != k {
				changed = true
				break
			}
		}
		if changed {
			cp := make(map[string]any, len(x))
			for k, e := range x {
				me, _ := m.value(e)
				cp[m.String(k)] = me
			}
			return cp, true
		}
	case []map[string]any:
		var cp []map[string]any
		for i, e := range x {
			if me, changed := m.value(e); changed {
				if cp == nil {
					cp = append([]map[string]any(nil), x...)
				}
				cp[i] = me.(map[string]any)
			}
		}
		if cp != nil {
			return cp, true
		}
	case error:
		s := x.Error()
		if y := m.String(s); y != s {
			return y, true
		}
	}
	return v, false
}
