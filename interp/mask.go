package interp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html"
	"math"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Mask is the one masker of a run: every secret value (secret params,
// password answers, values read from password fields) registered with Add
// is replaced by "***" in every string shown: result outputs, step
// outputs, errors, log lines and events.
//
// The rule: a string (or a number's decimal spelling) equal to a secret as
// a whole is always shown as "***". A secret of at least MinSubstring
// characters is also replaced where it appears inside a longer string
// (interpolations, a page's error text, a URL); a shorter one is not, so
// that --arg token=o neither turns "Power System" into "P***wer System"
// nor reveals itself by the position of the stars. Values derived from a
// secret taint: the value of any expression that reads a secret (or a
// name holding a derived value) is registered as a whole, every string and
// number inside a list or map too, so upper(password), password[1:] and
// split(password, "-") are masked like the secret itself, and an
// expression error that could show such a value is hidden.
type Mask struct {
	mu      sync.RWMutex
	version int             // bumped by every Add that registers something
	secrets []string        // substring-masked spellings of at most longForm bytes
	long    []*longSecret   // longer substring-masked spellings, longest first
	exact   map[string]bool // every registered spelling, masked as a whole value
	rep     *strings.Replacer
}

// longForm is the length in bytes above which a spelling is searched for
// on its own (longSecret, Knuth-Morris-Pratt: linear in the text) instead
// of inside the strings.Replacer of the shorter ones, whose trie walks up
// to a pattern's length at every position of the text (a 8,000-character
// secret against a long non-ASCII text took seconds per string).
const longForm = 256

// MinSubstring is the length in characters from which a secret is masked
// inside longer strings too; shorter secrets are masked as whole values
// only.
const MinSubstring = 4

// Masked is what a secret is shown as.
const Masked = "***"

// Add registers s as a secret ("" is ignored). Its JSON-, URL- and
// HTML-escaped spellings are registered too (url.QueryEscape "a+b%26",
// url.PathEscape, the percent-encoding a browser applies to a query or a
// path "Hunter%202&x=%C3%BC", encodeURIComponent's), so a secret inside
// JSON text, a URL or markup (a page's error text, url and html output)
// is caught as well; from MinSubstring characters also its spelling as a
// downloaded file's name ("a/b" → "a_b"), spelled out with a space
// between its characters ("4 8 1 5") and its base64 (standard and
// URL alphabets, with and without padding), and from 8 characters its
// lower- and upper-case spellings.
func (m *Mask) Add(s string) {
	if s == "" || s == Masked {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.exact[s] {
		return
	}
	if m.exact == nil {
		m.exact = map[string]bool{}
	}
	long := utf8.RuneCountInString(s) >= MinSubstring
	added := false
	add := func(x string) {
		if x == "" || m.exact[x] {
			return
		}
		m.exact[x] = true
		m.version++
		if long && len(x) > longForm {
			m.long = append(m.long, &longSecret{s: x})
			sort.SliceStable(m.long, func(i, j int) bool { return len(m.long[i].s) > len(m.long[j].s) })
		} else if long {
			m.secrets = append(m.secrets, x)
			added = true
		}
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
	// As a browser writes it into an address (WHATWG percent-encode sets
	// of the query and the path) and as encodeURIComponent does; each also
	// as markup shows it (href="...&amp;...").
	for _, u := range []string{url.QueryEscape(s), url.PathEscape(s),
		percentEncode(s, "\"#<>'"), percentEncode(s, "\"#<>?`{}"),
		percentEncode(s, "\"#<>?`{}/:;=@[\\]^|$&+,%")} {
		add(u)
		add(html.EscapeString(u))
	}
	add(html.EscapeString(s))
	if long {
		// As a browser names a downloaded file after it (Chromium replaces
		// the characters a file name cannot hold with "_"), and as base64
		// (a header, a data: URL, a token a page built from it).
		add(fileNameSpelling(s))
		// As a page spells a code out one character at a time ("4 8 1 5
		// 9 2", a one-time code or a PIN shown spaced for reading).
		if !strings.ContainsAny(s, " \t\n") {
			add(spaced(s))
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			add(enc.EncodeToString([]byte(s)))
		}
	}
	if utf8.RuneCountInString(s) >= minCaseFolded {
		// Lower- and upper-case spellings (an address's host, a page that
		// upper-cases a code) of secrets long enough not to match words.
		add(strings.ToLower(s))
		add(strings.ToUpper(s))
	}
	if !added {
		return
	}
	sort.SliceStable(m.secrets, func(i, j int) bool { return len(m.secrets[i]) > len(m.secrets[j]) })
	pairs := make([]string, 0, 2*len(m.secrets))
	for _, x := range m.secrets {
		pairs = append(pairs, x, Masked)
	}
	m.rep = strings.NewReplacer(pairs...)
}

// minCaseFolded is the length in characters from which a secret's lower-
// and upper-case spellings are masked too (a shorter one, "Test", would
// mask ordinary words).
const minCaseFolded = 8

// spaced is s with one space between its characters ("a b c").
func spaced(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fileNameSpelling is s as Chromium names a download after it: the path
// separators, the characters Windows refuses in a file name and control
// characters become "_".
func fileNameSpelling(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || strings.ContainsRune(`/\:*?"<>|~`, r) {
			return '_'
		}
		return r
	}, s)
}

// percentEncode escapes as %XX every byte of s that is a control, a space,
// not ASCII, or in set.
func percentEncode(s, set string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(set, c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// IsSecret reports whether s is a registered secret (exactly).
func (m *Mask) IsSecret(s string) bool {
	if m == nil || s == "" {
		return false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.exact[s]
}

// Empty reports whether no secret is registered.
func (m *Mask) Empty() bool {
	if m == nil {
		return true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.exact) == 0
}

// String masks every secret inside s.
func (m *Mask) String(s string) string {
	if m == nil {
		return s
	}
	if s == "" {
		return s
	}
	m.mu.RLock()
	rep, long, whole := m.rep, m.long, m.exact[s]
	m.mu.RUnlock()
	if whole {
		return Masked
	}
	// Longest first: the long spellings one by one (each linear in s; one
	// longer than s cannot be in it), then the short ones in one pass.
	for _, l := range long {
		if len(l.s) <= len(s) {
			s = l.replace(s)
		}
	}
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// longSecret is a spelling longer than longForm bytes with its
// Knuth-Morris-Pratt failure table, made on first use (a long secret is
// searched for only in texts at least as long as itself).
type longSecret struct {
	s    string
	once sync.Once
	fail []int32 // fail[i]: length of the longest proper border of s[:i+1]
}

// replace returns text with every occurrence of l.s (left to right, not
// overlapping) replaced by Masked, in time linear in len(text)+len(l.s).
func (l *longSecret) replace(text string) string {
	l.once.Do(func() {
		p := l.s
		l.fail = make([]int32, len(p))
		k := int32(0)
		for i := 1; i < len(p); i++ {
			for k > 0 && p[i] != p[k] {
				k = l.fail[k-1]
			}
			if p[i] == p[k] {
				k++
			}
			l.fail[i] = k
		}
	})
	p, fail := l.s, l.fail
	var b strings.Builder
	last, k := 0, int32(0)
	for i := 0; i < len(text); i++ {
		if k == 0 { // skip to the next byte that can start a match
			j := strings.IndexByte(text[i:], p[0])
			if j < 0 {
				break
			}
			i += j
		}
		for k > 0 && text[i] != p[k] {
			k = fail[k-1]
		}
		if text[i] == p[k] {
			k++
		}
		if int(k) == len(p) {
			start := i + 1 - len(p)
			if b.Len() == 0 {
				b.Grow(len(text))
			}
			b.WriteString(text[last:start])
			b.WriteString(Masked)
			last, k = i+1, 0
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// Value returns v with every string inside it (map keys too) masked, and
// every number whose decimal spelling is a registered secret (a value
// derived from a secret) shown as "***". It copies only what changes; v
// itself is never modified.
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
	case Row:
		mv, changed := m.value(x.Values)
		if changed {
			cp := mv.(map[string]any)
			keys := make([]string, len(x.Keys))
			for i, k := range x.Keys {
				keys[i] = m.String(k)
			}
			return Row{Keys: keys, Values: cp}, true
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
	case int, int64, float64:
		if m.IsSecret(stringify(x)) {
			return Masked, true
		}
	case error:
		s := x.Error()
		if y := m.String(s); y != s {
			return y, true
		}
	}
	return v, false
}

// addDerived registers every string and number inside v (list elements,
// map values; keys are names, not data) as a secret: v was computed from a secret.
func (m *Mask) addDerived(v any) {
	switch x := v.(type) {
	case string:
		m.Add(x)
	case int, int64, float64:
		m.Add(stringify(x))
	case []any:
		for _, e := range x {
			m.addDerived(e)
		}
	case []string:
		for _, e := range x {
			m.Add(e)
		}
	case map[string]any:
		for _, e := range x {
			m.addDerived(e)
		}
	case []map[string]any:
		for _, e := range x {
			m.addDerived(e)
		}
	}
}

// holdsSecret reports whether v, or any string or number inside it, is a
// secret or (strings) contains one.
func (m *Mask) holdsSecret(v any) bool {
	switch x := v.(type) {
	case string:
		return x != "" && m.String(x) != x
	case int, int64, float64:
		return m.IsSecret(stringify(x))
	case []any:
		for _, e := range x {
			if m.holdsSecret(e) {
				return true
			}
		}
	case []string:
		for _, e := range x {
			if m.holdsSecret(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if m.holdsSecret(k) || m.holdsSecret(e) {
				return true
			}
		}
	case []map[string]any:
		for _, e := range x {
			if m.holdsSecret(e) {
				return true
			}
		}
	}
	return false
}

// finite returns v with every non-finite number inside it (1/0, NaN) as
// nil, so a result always encodes as JSON (null, as JavaScript's
// JSON.stringify does). It copies only what changes.
func finite(v any) any {
	out, _ := finiteValue(v)
	return out
}

func finiteValue(v any) (any, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, true
		}
	case float32:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return nil, true
		}
	case []any:
		var cp []any
		for i, e := range x {
			if fe, changed := finiteValue(e); changed {
				if cp == nil {
					cp = append([]any(nil), x...)
				}
				cp[i] = fe
			}
		}
		if cp != nil {
			return cp, true
		}
	case []float64:
		for _, e := range x {
			if math.IsInf(e, 0) || math.IsNaN(e) {
				cp := make([]any, len(x))
				for i, f := range x {
					cp[i], _ = finiteValue(f)
				}
				return cp, true
			}
		}
	case map[string]any:
		var cp map[string]any
		for k, e := range x {
			if fe, changed := finiteValue(e); changed {
				if cp == nil {
					cp = make(map[string]any, len(x))
					for k2, e2 := range x {
						cp[k2] = e2
					}
				}
				cp[k] = fe
			}
		}
		if cp != nil {
			return cp, true
		}
	case []map[string]any:
		var cp []map[string]any
		for i, e := range x {
			if fe, changed := finiteValue(e); changed {
				if cp == nil {
					cp = append([]map[string]any(nil), x...)
				}
				cp[i] = fe.(map[string]any)
			}
		}
		if cp != nil {
			return cp, true
		}
	}
	return v, false
}

// heldCache remembers, per list or map (by identity: values in scope are
// never modified in place), whether it holds a secret, until the next
// secret is registered; a loop over a large table then does not scan it
// at every expression.
type heldCache struct {
	version int
	m       map[heldKey]bool
}

type heldKey struct {
	ptr uintptr
	n   int
}

// holds is m.holdsSecret(v), cached for lists and maps.
func (c *heldCache) holds(m *Mask, v any) bool {
	var k heldKey
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return false
		}
		k = heldKey{uintptr(unsafe.Pointer(&x[0])), len(x)}
	case map[string]any:
		if len(x) == 0 {
			return false
		}
		k = heldKey{reflect.ValueOf(x).Pointer(), len(x)}
	default:
		return m.holdsSecret(v)
	}
	m.mu.RLock()
	ver := m.version
	m.mu.RUnlock()
	if c.m == nil || c.version != ver {
		c.m, c.version = map[heldKey]bool{}, ver
	}
	if h, ok := c.m[k]; ok {
		return h
	}
	h := m.holdsSecret(v)
	c.m[k] = h
	return h
}
