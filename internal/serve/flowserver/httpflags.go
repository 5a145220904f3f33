package flowserver

import (
	"errors"
	"flag"
	"net"
	"os"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// HTTP is how a flow server is also served over Streamable HTTP, as the
// flags of `rpa serve` (--http, --token) and `rpa ui` (--serve-http,
// --http-token) give it.
type HTTP struct {
	Addr string // "" = not over HTTP; else mcpserver.HTTPAddr's forms ("8765", ":8765", "HOST:PORT")
	// Tokens are the bearer tokens clients may send, one per caller (none
	// after Check: no token is asked for). Each token is one caller: what
	// its calls start belongs to it (runs.Owner), so agents that must not
	// see each other's runs get one each (a 2026-07-28 client has no
	// session: its token is all that names it).
	Tokens       []string
	AllowOrigins []string // browser origins allowed besides loopback (mcpserver.Options.AllowOrigins)
	// SessionIdle ends an HTTP session idle this long
	// (mcpserver.Options.SessionIdle; --session-idle, default 30 min).
	SessionIdle time.Duration
}

// Register declares the address flag (named addrFlag, with its help), the
// token flag (tokenFlag), --allow-origin and --session-idle on fs.
func (h *HTTP) Register(fs *flag.FlagSet, addrFlag, addrHelp, tokenFlag string) {
	fs.StringVar(&h.Addr, addrFlag, "", addrHelp)
	fs.Var((*cliflag.List)(&h.Tokens), tokenFlag, "a bearer token HTTP clients must send (default $RPA_TOKEN); repeat it to give each agent its own: each token is one caller, which alone sees the runs it started")
	fs.DurationVar(&h.SessionIdle, "session-idle", mcpserver.DefaultSessionIdle, "end an HTTP session after this long without a request (a client gone without DELETE leaves nothing behind)")
	fs.Var((*cliflag.List)(&h.AllowOrigins), "allow-origin", "let browser pages of this origin (https://host[:port]) call the HTTP transport (repeatable; loopback origins of the port always may)")
}

// Check reports a bad --allow-origin or an empty token; it then takes the
// token from $RPA_TOKEN when none was given.
func (h *HTTP) Check() error {
	if err := mcpserver.CheckOrigins(h.AllowOrigins); err != nil {
		return err
	}
	for _, t := range h.Tokens {
		if strings.TrimSpace(t) == "" {
			return errors.New("--token: empty token")
		}
	}
	if len(h.Tokens) == 0 {
		if t := os.Getenv("RPA_TOKEN"); t != "" {
			h.Tokens = []string{t}
		}
	}
	return nil
}

// Listen opens the TCP listener at Addr (mcpserver.HTTPAddr: a bare port
// binds 127.0.0.1).
func (h *HTTP) Listen() (net.Listener, error) {
	return net.Listen("tcp", mcpserver.HTTPAddr(h.Addr))
}
