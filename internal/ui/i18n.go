package ui

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/internal/msg"
)

// Text is one interface string in the console's two languages (the message catalog's,
// package msg).
type Text = msg.Text

// RegisterText adds interface strings by key to rpa's message catalog (msg.Register): a key
// registered twice, or with a language left empty, panics (at init, so a test run catches it).
func RegisterText(m map[string]Text) { msg.Register(m) }

// TextKeys lists the catalog's keys, sorted (msg.Keys).
func TextKeys() []string { return msg.Keys() }

// Translate is key's text in lang ("zh" or "en"); with args it is a fmt format. An unknown key
// comes back as "‹key›" so a missing registration shows on the page (and in TestTextsComplete).
func Translate(lang, key string, args ...any) string { return msg.T(lang, key, args...) }

// langCookie holds the language the switch chose.
const langCookie = "rpa_ui_lang"

// Lang is the request's language, "zh" or "en": the switch's cookie, else the first of zh/en in
// Accept-Language by weight, else "en".
func (s *Server) Lang(r *http.Request) string {
	if c, err := r.Cookie(langCookie); err == nil && (c.Value == "zh" || c.Value == "en") {
		return c.Value
	}
	return acceptLang(r.Header.Get("Accept-Language"))
}

// T is key's text in r's language (see Translate).
func (s *Server) T(r *http.Request, key string, args ...any) string {
	return Translate(s.Lang(r), key, args...)
}

// acceptLang picks zh or en from an Accept-Language value (RFC 9110 section 12.5.4).
func acceptLang(h string) string {
	best, bestQ := "en", -1.0
	for _, part := range strings.Split(h, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		tag = strings.ToLower(strings.TrimSpace(tag))
		var l string
		switch {
		case tag == "zh" || strings.HasPrefix(tag, "zh-"):
			l = "zh"
		case tag == "en" || strings.HasPrefix(tag, "en-"):
			l = "en"
		default:
			continue
		}
		if q > bestQ {
			best, bestQ = l, q
		}
	}
	return best
}
