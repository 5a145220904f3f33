package actions

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// CheckOpenURL says why u cannot be opened ("" when it can): open needs an
// absolute http or https URL with a host, or a file:, about:, data: or
// blob: URL (tabs and newlines inside are ignored). A relative
// "notaurl/login" would otherwise leave the tab loading nothing until the
// action's timeout.
func CheckOpenURL(u string) string {
	// As browsers do (WHATWG URL), tabs and newlines are dropped and
	// surrounding spaces trimmed.
	clean := strings.TrimSpace(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(u))
	pu, err := url.Parse(clean)
	if err != nil {
		return fmt.Sprintf("%q is not a valid URL: %v", u, unwrapURLErr(err))
	}
	switch strings.ToLower(pu.Scheme) {
	case "http", "https":
		if pu.Host == "" {
			return fmt.Sprintf("%q has no host (want %s://HOST/...)", u, strings.ToLower(pu.Scheme))
		}
		return ""
	case "file", "about", "data", "blob":
		return ""
	case "":
		return fmt.Sprintf("%q is not an absolute URL (want http://, https://, file:, about: or data:)", u)
	}
	return fmt.Sprintf("%q: scheme %q is not one open loads (want http, https, file, about or data)", u, pu.Scheme)
}

func unwrapURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
