package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// DefaultConnectEnv returns the settings file of the rpa-connect systemd
// user service, ~/.config/rpa/connect.env (the unit reads
// %h/.config/rpa/connect.env), or "" off Linux, where there is no such
// service.
func DefaultConnectEnv() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "rpa", "connect.env")
}

// The keys of the connect settings file (packaging/connect.env documents them).
const (
	EnvURL      = "RPA_URL"          // the backend's ws:// or wss:// URL (required); several, space-separated, for a gateway cluster
	EnvDeviceID = "RPA_DEVICE_ID"    // this desktop's id at the backend (required)
	EnvToken    = "RPA_TOKEN"        // bearer token (optional; read by rpa connect itself)
	EnvArgs     = "RPA_CONNECT_ARGS" // extra flags for rpa connect, split at spaces (optional)
)

// ParseEnvFile reads a systemd EnvironmentFile: KEY=VALUE lines, blank
// lines and lines starting with # or ; ignored, a value optionally in
// single or double quotes. A line that is not KEY=VALUE is an error naming
// its line number.
func ParseEnvFile(b []byte) (map[string]string, error) {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(strings.TrimPrefix(k, "export "))
		if !ok || k == "" || strings.ContainsAny(k, " \t\"'") {
			return nil, fmt.Errorf("line %d: want KEY=VALUE", n)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		env[k] = v
	}
	return env, sc.Err()
}

// checkWSURL reports why u is not a ws:// or wss:// URL with a host.
func checkWSURL(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("%s is not a URL", EnvURL)
	}
	if (p.Scheme != "ws" && p.Scheme != "wss") || p.Host == "" {
		return fmt.Errorf("%s=%s is not ws://HOST/PATH or wss://HOST/PATH", EnvURL, redactURL(u))
	}
	return nil
}

// redactURL drops a query string (it may carry a secret) and any user info.
func redactURL(u string) string {
	if p, err := url.Parse(u); err == nil {
		if p.User != nil {
			p.User = url.User("***")
		}
		if p.RawQuery != "" {
			p.RawQuery = "…"
		}
		return p.String()
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i] + "?…"
	}
	return u
}

// CheckConnectEnv checks the settings file of the rpa-connect user service
// at path: missing is a note (the service is optional); a file without a
// ws(s) RPA_URL or an RPA_DEVICE_ID, or one holding a token that other
// users can read, fails. The token itself is never shown.
func CheckConnectEnv(path string) Check {
	c := Check{Name: "connect settings"}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		c.Status, c.Detail = Note, path+" does not exist: the rpa-connect user service is not set up"
		c.Fix = "only for a backend link: copy " + ConnectEnvExample() + " to " + path + ", fill it in, then `systemctl --user enable --now rpa-connect`"
		return c
	}
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, path+": "+pathErr(err), "make "+path+" readable by you"
		return c
	}
	env, err := ParseEnvFile(b)
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, path+": "+err.Error(), "write one KEY=VALUE per line (see "+ConnectEnvExample()+")"
		return c
	}
	var problems []string
	urls := strings.FieldsFunc(env[EnvURL], func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(urls) == 0 {
		problems = append(problems, EnvURL+" is not set")
	}
	for _, u := range urls {
		if err := checkWSURL(u); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if strings.TrimSpace(env[EnvDeviceID]) == "" {
		problems = append(problems, EnvDeviceID+" is not set")
	}
	if len(problems) > 0 {
		c.Status, c.Detail = Fail, path+": "+strings.Join(problems, "; ")
		c.Fix = "set " + EnvURL + "=wss://HOST/PATH and " + EnvDeviceID + "=NAME in " + path
		return c
	}
	if env[EnvToken] != "" && runtime.GOOS != "windows" {
		if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
			c.Status = Fail
			c.Detail = fmt.Sprintf("%s holds %s but its mode is %04o: other users can read the token", path, EnvToken, st.Mode().Perm())
			c.Fix = "`chmod 600 " + path + "`"
			return c
		}
	}
	tok := "no token"
	if env[EnvToken] != "" {
		tok = "token set"
	}
	c.Status = OK
	shown := make([]string, len(urls))
	for i, u := range urls {
		shown[i] = redactURL(u)
	}
	c.Detail = fmt.Sprintf("%s: %s as device %q, %s", path, strings.Join(shown, " "), env[EnvDeviceID], tok)
	return c
}

// CheckConnect dials rawURL once as `rpa connect` does (WebSocket,
// subprotocol "mcp", bearer token), sends the register message with
// deviceID and no tools, and waits for the backend's first JSON-RPC
// request (an `rpa gateway` sends initialize once it accepts a desktop);
// then it closes the link. ctx bounds the whole exchange. Fails on a bad
// URL, a refused dial (the HTTP status names a bad token), or a link the
// backend closes.
func CheckConnect(ctx context.Context, rawURL, deviceID, token string) Check {
	c := Check{Name: "connect"}
	shown := redactURL(rawURL)
	if err := checkWSURL(rawURL); err != nil {
		c.Status, c.Detail, c.Fix = Fail, strings.Replace(err.Error(), EnvURL+"=", "", 1), "give --connect as ws://HOST/PATH or wss://HOST/PATH"
		return c
	}
	link, err := mcpws.Dial(ctx, rawURL, token, mcpws.Options{})
	if err != nil {
		c.Status, c.Detail = Fail, firstLine(err.Error())
		switch {
		case strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "403"):
			c.Fix = "the backend refused the token: check --token (or $RPA_TOKEN) against the backend's"
		case ctx.Err() != nil:
			c.Fix = "the backend did not answer in time: check the URL, the network and any proxy (HTTPS_PROXY)"
		default:
			c.Fix = "check that the backend runs at " + shown + " and can be reached from here (firewall, proxy, TLS certificate)"
		}
		return c
	}
	defer link.CloseWith(1000, "rpa doctor: check done")
	reg := mcpws.Register{Type: mcpws.TypeRegister, DeviceID: deviceID, Capabilities: []string{}, AvailableTools: []string{}}
	if err := link.WriteJSON(reg); err != nil {
		c.Status, c.Detail, c.Fix = Fail, "register: "+firstLine(err.Error()), "check the backend's log"
		return c
	}
	type read struct {
		frame []byte
		err   error
	}
	got := make(chan read, 1)
	go func() {
		f, err := link.ReadFrame()
		got <- read{f, err}
	}()
	var r read
	select {
	case r = <-got:
	case <-ctx.Done():
		link.Abort()
		<-got
		c.Status, c.Detail = Fail, "connected to "+shown+" but the backend sent nothing after register"
		c.Fix = "is it an rpa gateway (or a backend speaking the rpa link protocol)? see its log"
		return c
	}
	if r.err != nil {
		c.Status, c.Detail = Fail, "the backend closed the link after register: "+firstLine(r.err.Error())
		c.Fix = "see the backend's log; it may reject device id " + fmt.Sprintf("%q", deviceID)
		return c
	}
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(r.frame, &msg)
	c.Status = OK
	c.Detail = fmt.Sprintf("registered at %s as device %q", shown, deviceID)
	if msg.Method != "" {
		c.Detail += "; the backend answered with " + msg.Method
	}
	return c
}

// packagedExample is where the .deb and .rpm install the example settings.
const packagedExample = "/usr/share/doc/rpa/connect.env.example"

// ConnectEnvExample is the example connect.env a person can copy: the
// packages' (/usr/share/doc/rpa/connect.env.example) when it is there, else
// the one the portable archives hold next to the rpa binary, else the
// packages' path (with where the archives keep it).
func ConnectEnvExample() string {
	if _, err := os.Stat(packagedExample); err == nil {
		return packagedExample
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "connect.env.example")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return packagedExample + " (in the portable archives: connect.env.example next to rpa)"
}
