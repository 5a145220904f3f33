package drivers

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// StorageState is what a browser profile keeps of its sign-ins: its
// cookies and the local storage of origins. The JSON shape is Playwright's
// storageState (cookies with expires in Unix seconds, -1 for a session
// cookie; origins with their localStorage name/value pairs), so a state
// moves between tools.
type StorageState struct {
	Cookies []Cookie        `json:"cookies"`
	Origins []OriginStorage `json:"origins"`
}

// Cookie is one cookie of a StorageState.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"` // Unix seconds; -1: a session cookie
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite,omitempty"` // Strict, Lax, None, or "" (the browser's default)
}

// OriginStorage is the local storage of one origin ("https://host:port").
type OriginStorage struct {
	Origin       string      `json:"origin"`
	LocalStorage []NameValue `json:"localStorage"`
}

// NameValue is one local storage item.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// StorageStater is a Browser that reads and writes its storage state
// (`rpa profile export` and `import`). The rod driver implements it.
type StorageStater interface {
	// StorageState returns every cookie of the browser (its profile's
	// context) and the local storage of each origin of origins that holds
	// any. Reading an origin's storage loads a blank document in its place
	// in a tab of its own; no request leaves the browser.
	StorageState(ctx context.Context, origins []string) (*StorageState, error)
	// SetStorageState adds st's cookies (replacing those of the same name,
	// domain and path) and local storage items to the browser, the same
	// way.
	SetStorageState(ctx context.Context, st *StorageState) error
}

// Origin returns the origin of s ("scheme://host[:port]", lower case; http
// or https only), or an error naming s.
func Origin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("origin %q: want http(s)://HOST[:PORT]", s)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}
