package record

import (
	"net/url"
	"regexp"
	"strings"
)

// urlInText finds the addresses in a text (a snapshot's page line, its
// links).
var urlInText = regexp.MustCompile(`https?://[^\s"'<>]+`)

// maskURLsIn applies maskURLCredentials to every address in s.
func maskURLsIn(s string) string {
	return urlInText.ReplaceAllStringFunc(s, maskURLCredentials)
}

// credentialParams are query and fragment parameters that carry a
// credential (OAuth 2.0 RFC 6749/6750 redirects, signed URLs, API keys,
// session IDs in URLs): their values never reach a run's record.
var credentialParams = map[string]bool{
	"access_token": true, "id_token": true, "refresh_token": true, "token": true, "code": true,
	"api_key": true, "apikey": true, "password": true, "passwd": true, "pwd": true, "secret": true,
	"client_secret": true, "session": true, "sessionid": true, "session_id": true, "sid": true,
	"jsessionid": true, "phpsessid": true, "auth": true, "signature": true, "sig": true,
	"x-amz-signature": true, "x-amz-credential": true, "x-amz-security-token": true, "jwt": true,
}

// maskURL is u as a record shows a page's address: masked like any text
// (the run's secrets), and with the password of its user info and the
// values of credential parameters (credentialParams) in its query or
// fragment replaced by "***", since the page, not the flow, put them
// there (an SSO redirect, a signed link).
func (r *Recorder) maskURL(u string) string {
	return maskURLCredentials(r.mask.String(u))
}

// maskURLCredentials is maskURL without the run's secrets.
func maskURLCredentials(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		return u
	}
	out := u
	if p.User != nil {
		if pw, ok := p.User.Password(); ok && pw != "" {
			if i := strings.Index(out, "://"); i >= 0 {
				if at := strings.IndexByte(out[i+3:], '@'); at >= 0 {
					info := out[i+3 : i+3+at]
					if c := strings.IndexByte(info, ':'); c >= 0 {
						out = out[:i+3] + info[:c+1] + "***" + out[i+3+at:]
					}
				}
			}
		}
	}
	// The query (after ?) and the fragment (after #), parameter by parameter,
	// text kept as it was except the masked values.
	cut := func(s string) string {
		parts := strings.Split(s, "&")
		changed := false
		for i, kv := range parts {
			k, _, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			key, err := url.QueryUnescape(k)
			if err != nil {
				key = k
			}
			if credentialParams[strings.ToLower(key)] {
				parts[i], changed = k+"=***", true
			}
		}
		if !changed {
			return s
		}
		return strings.Join(parts, "&")
	}
	head, frag, hasFrag := strings.Cut(out, "#")
	base, query, hasQuery := strings.Cut(head, "?")
	if hasQuery {
		head = base + "?" + cut(query)
	}
	if hasFrag {
		return head + "#" + cut(frag)
	}
	return head
}
