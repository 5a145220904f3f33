package core

import (
	"net/url"
	"regexp"
)

// loginPath matches the path of a sign-in page: /login, /log-in, /signin,
// /sign-in, /auth, /sso, /session/new, /account/login (any case, as a
// path segment's start).
var loginPath = regexp.MustCompile(`(?i)/(log-?in|sign-?in|signin|auth|sso|session/new|account/login)\b`)

// IsLoginURL reports whether the address u looks like a sign-in page by
// its path (the failure packet's hint and a flow's `defaults login:`
// share it).
func IsLoginURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	return loginPath.MatchString(p.Path)
}
