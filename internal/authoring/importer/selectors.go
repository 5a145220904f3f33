package importer

import (
	"regexp"
	"strings"
	"sync"
)

// chromeSelector maps one single-part Chrome Recorder selector to the flow
// selector syntax (LANGUAGE.md, "Selectors"): aria/ and pierce/ are the
// same, xpath/X is xpath=X, text/X is text=X, anything else is CSS.
func chromeSelector(s string) string {
	switch {
	case strings.HasPrefix(s, "xpath/"):
		return "xpath=" + strings.TrimPrefix(s, "xpath/")
	case strings.HasPrefix(s, "text/"):
		return "text=" + strings.TrimPrefix(s, "text/")
	}
	return s
}

// isCSS reports whether a Chrome Recorder selector part is plain CSS.
func isCSS(s string) bool {
	for _, p := range []string{"aria/", "pierce/", "xpath/", "text/"} {
		if strings.HasPrefix(s, p) {
			return false
		}
	}
	return true
}

// seleniumLocator maps a Selenium IDE locator (id=, name=, css=, xpath=,
// linkText=/link=, partialLinkText=, identifier=, or a bare //xpath) to
// flow selectors (a fallback list for identifier=). ok=false when the
// strategy has no equivalent (dom=, or an unknown prefix).
func seleniumLocator(loc string) (sels []string, ok bool) {
	if strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "(//") {
		return []string{"xpath=" + loc}, true
	}
	strategy, v, found := strings.Cut(loc, "=")
	if !found {
		return nil, false
	}
	switch strategy {
	case "id":
		return []string{cssID(v)}, true
	case "name":
		return []string{`[name=` + cssString(v) + `]`}, true
	case "css":
		return []string{v}, true
	case "xpath":
		return []string{"xpath=" + v}, true
	case "linkText", "link":
		return []string{"xpath=//a[normalize-space(.)=" + xpathString(strings.TrimSpace(v)) + "]"}, true
	case "partialLinkText":
		return []string{"xpath=//a[contains(normalize-space(.), " + xpathString(strings.TrimSpace(v)) + ")]"}, true
	case "identifier":
		return []string{cssID(v), `[name=` + cssString(v) + `]`}, true
	}
	return nil, false
}

var cssIdentRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?[A-Za-z_][A-Za-z0-9_-]*$`) })

// cssID is `#id` when id is a plain CSS identifier, else `[id="id"]`.
func cssID(id string) string {
	if cssIdentRe().MatchString(id) {
		return "#" + id
	}
	return `[id=` + cssString(id) + `]`
}

// cssString quotes s as a CSS string.
func cssString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\a `).Replace(s) + `"`
}

// xpathString quotes s as an XPath 1.0 string literal (concat() when it
// holds both quote kinds).
func xpathString(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	parts := strings.Split(s, "'")
	out := "concat("
	for i, p := range parts {
		if i > 0 {
			out += `, "'", `
		}
		out += "'" + p + "'"
	}
	return out + ")"
}

var (
	cssIDRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#((?:[A-Za-z0-9_-]|\\.)+)\s*$`) })
	cssNameRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]+))\s*\]`)
	})
	xpIDRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@id\s*=\s*(?:"([^"]*)"|'([^']*)')`) })
	xpNameRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@name\s*=\s*(?:"([^"]*)"|'([^']*)')`) })
	ariaNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^aria/([^\[]+)`) })
)

func firstGroup(m []string) string {
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return ""
}

// fieldName guesses a form field's name from its selectors, for naming a
// secret param: its name attribute first, then its id, then its
// accessible label; "password" when none shows.
func fieldName(sels []string) string {
	var id, label string
	for _, s := range sels {
		body := strings.TrimPrefix(strings.TrimPrefix(s, "pierce/"), "xpath=")
		if m := cssNameRe().FindStringSubmatch(body); m != nil {
			return firstGroup(m)
		}
		if m := xpNameRe().FindStringSubmatch(body); m != nil {
			return firstGroup(m)
		}
		if id == "" {
			if m := xpIDRe().FindStringSubmatch(body); m != nil {
				id = firstGroup(m)
			} else if !strings.HasPrefix(s, "xpath=") && !strings.HasPrefix(s, "aria/") && !strings.HasPrefix(s, "text=") {
				if m := cssIDRe().FindStringSubmatch(body); m != nil {
					id = strings.ReplaceAll(m[1], `\`, "")
				}
			}
		}
		if label == "" {
			if m := ariaNameRe().FindStringSubmatch(s); m != nil {
				label = strings.TrimSpace(m[1])
			}
		}
	}
	switch {
	case id != "":
		return id
	case label != "":
		return label
	}
	return "password"
}

// selectorsSayPassword reports whether any selector names a password field
// (`#password`, `input[type=password]`, `aria/Password` ...).
func selectorsSayPassword(sels []string) bool {
	for _, s := range sels {
		if looksPassword(s) {
			return true
		}
	}
	return false
}
