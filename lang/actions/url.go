package actions

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CheckOpenURL says why u cannot be opened ("" when it can): open needs an
// absolute http or https URL with a host, or a file:, about:, data: or
// blob: URL (tabs and newlines inside are ignored). A relative
// "notaurl/login" would otherwise leave the tab loading nothing until the
// action's timeout.
func CheckOpenURL(u string) string {
	if len(u) > 200 { // named by its length, never sent back whole (PROTOCOL.md)
		return checkOpenURL(u, fmt.Sprintf("a URL of %d bytes", len(u)))
	}
	return checkOpenURL(u, strconv.Quote(u))
}

// checkOpenURL is CheckOpenURL naming u as shown.
func checkOpenURL(u, shown string) string {
	// As browsers do (WHATWG URL), tabs and newlines are dropped and
	// surrounding spaces trimmed.
	clean := strings.TrimSpace(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(u))
	pu, err := url.Parse(clean)
	if err != nil {
		return fmt.Sprintf("%s is not a valid URL: %v", shown, unwrapURLErr(err))
	}
	switch strings.ToLower(pu.Scheme) {
	case "http", "https":
		if pu.Host == "" {
			return fmt.Sprintf("%s has no host (want %s://HOST/...)", shown, strings.ToLower(pu.Scheme))
		}
		return ""
	case "file", "about", "data", "blob":
		return ""
	case "":
		return fmt.Sprintf("%s is not an absolute URL (want http://, https://, file:, about: or data:)", shown)
	}
	return fmt.Sprintf("%s: scheme %s is not one open loads (want http, https, file, about or data)", shown, strconv.Quote(clip(pu.Scheme)))
}

// clip bounds a scheme quoted back (a URL's scheme has no length limit).
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func unwrapURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
