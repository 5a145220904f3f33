package connect

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Check reports a URL (of URL and More) that is not ws://HOST/PATH or wss://HOST/PATH, or a
// missing DeviceID (New checks them too; `rpa connect` checks before it
// builds anything).
func (o Options) Check() error {
	for _, raw := range append([]string{o.URL}, o.More...) {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return fmt.Errorf("URL %q must be ws://HOST/PATH or wss://HOST/PATH", redact(raw))
		}
	}
	if strings.TrimSpace(o.DeviceID) == "" {
		return errors.New("--device-id is required")
	}
	return nil
}

// InClear lists the addresses of o whose link would carry the token
// unencrypted to another machine: ws:// (not wss://) to a host that is not
// this machine's loopback (localhost, 127.0.0.0/8, ::1). Empty without a
// token.
func (o Options) InClear() []string {
	if o.Token == "" {
		return nil
	}
	var out []string
	for _, raw := range append([]string{o.URL}, o.More...) {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "ws" {
			continue
		}
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			continue
		}
		out = append(out, redact(raw))
	}
	return out
}

// SplitURLs splits the backend addresses given to `rpa connect` (several arguments, and each
// argument at spaces and commas: RPA_URL="ws://g1/ws ws://g2/ws" in connect.env) into URL and
// More. Empty parts are dropped.
func SplitURLs(args []string) (first string, more []string) {
	var all []string
	for _, a := range args {
		all = append(all, strings.FieldsFunc(a, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })...)
	}
	if len(all) == 0 {
		return "", nil
	}
	return all[0], all[1:]
}
