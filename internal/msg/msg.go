// Package msg is rpa's message catalog: the texts a person reads (the
// console's pages, errors and hints; the run report; the failure packet's
// prose; command-line messages) in English and Chinese (simplified), by
// key. Packages register their texts at init (Register); TestCatalog
// checks that every text has both languages with the same format verbs.
// JSON keys and values meant for programs (kinds, statuses, field names)
// are never translated.
package msg

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Text is one message in both languages.
type Text struct {
	// En is the English text.
	En string
	// Zh is the Chinese (simplified) text.
	Zh string
}

var catalog struct {
	mu sync.RWMutex
	m  map[string]Text
}

// Register adds messages by key. A key registered twice, or with a
// language left empty, panics (at init, so any test run catches it).
func Register(m map[string]Text) {
	catalog.mu.Lock()
	defer catalog.mu.Unlock()
	if catalog.m == nil {
		catalog.m = map[string]Text{}
	}
	for k, v := range m {
		if _, dup := catalog.m[k]; dup {
			panic(fmt.Sprintf("msg: %q registered twice", k))
		}
		if v.En == "" || v.Zh == "" {
			panic(fmt.Sprintf("msg: %q lacks a language (en %q, zh %q)", k, v.En, v.Zh))
		}
		catalog.m[k] = v
	}
}

// Keys lists the registered keys, sorted.
func Keys() []string {
	catalog.mu.RLock()
	defer catalog.mu.RUnlock()
	ks := make([]string, 0, len(catalog.m))
	for k := range catalog.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Lookup returns key's message.
func Lookup(key string) (Text, bool) {
	catalog.mu.RLock()
	defer catalog.mu.RUnlock()
	t, ok := catalog.m[key]
	return t, ok
}

// T is key's text in lang ("zh", else English); with args it is a fmt
// format. An unknown key comes back as "‹key›", so a missing registration
// shows where it is used.
func T(lang, key string, args ...any) string {
	t, ok := Lookup(key)
	if !ok {
		return "‹" + key + "›"
	}
	s := t.En
	if lang == "zh" {
		s = t.Zh
	}
	if len(args) > 0 {
		s = fmt.Sprintf(s, args...)
	}
	return s
}

// Env is the language of this process's person: "zh" when the first set
// of LC_ALL, LC_MESSAGES and LANG (POSIX's order) starts with "zh"
// (zh_CN.UTF-8, zh_TW, zh), else "en". RPA_LANG=zh|en overrides them.
func Env() string {
	if l := os.Getenv("RPA_LANG"); l == "zh" || l == "en" {
		return l
	}
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if s := os.Getenv(v); s != "" {
			if strings.HasPrefix(strings.ToLower(s), "zh") {
				return "zh"
			}
			return "en"
		}
	}
	return "en"
}

// verbs are a format's verbs (%s, %d, %[1]s, %q, ...; %% is none).
var verbs = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

// outWord is a word of three letters or more.
var outWord = regexp.MustCompile(`[A-Za-z]{3}`)

// verbKinds counts a format's verbs by kind (%[2]s and %s are both s).
func verbKinds(s string) map[string]int {
	out := map[string]int{}
	for _, v := range verbs.FindAllString(s, -1) {
		if v != "%%" {
			out[v[len(v)-1:]]++
		}
	}
	return out
}

// Check returns a sentence per problem of the registered messages: the
// languages' format verbs differ (a Chinese text may reorder them, %[2]s),
// or the Chinese text is the English sentence. Register already refuses a
// missing language. A test of a package that links every registering
// package (the console's, the command's) calls it.
func Check() []string {
	var out []string
	for _, k := range Keys() {
		m, _ := Lookup(k)
		ev, zv := verbKinds(m.En), verbKinds(m.Zh)
		same := len(ev) == len(zv)
		for v, n := range ev {
			same = same && zv[v] == n
		}
		if !same {
			out = append(out, fmt.Sprintf("%s: format verbs differ: en %q, zh %q", k, m.En, m.Zh))
		}
		if strings.HasPrefix(k, OutPrefix) && !outWord.MatchString(verbs.ReplaceAllString(m.En, "")) {
			out = append(out, fmt.Sprintf("%s: an output line needs a word of its own (3 letters or more) besides its verbs: %q", k, m.En))
		}
		han := strings.IndexFunc(m.Zh, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
		if !han && m.Zh == m.En && strings.ContainsRune(m.En, ' ') { // one word is a name: "English", "JSON"
			out = append(out, fmt.Sprintf("%s: the Chinese text is the English one: %q", k, m.Zh))
		}
	}
	return out
}
