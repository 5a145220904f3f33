package flowserver

import (
	"flag"
	"net"
	"os"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// HTTP is how a flow server is also served over Streamable HTTP, as the
// flags of `rpa serve` (--http, --token) and `rpa ui` (--serve-http,
// --http-token) give it.
type HTTP struct {
	Addr         string   // "" = not over HTTP; else mcpserver.HTTPAddr's forms ("8765", ":8765", "HOST:PORT")
	Token        string   // the bearer token clients must send ("" after TokenFromEnv: none)
	AllowOrigins []string // browser origins allowed besides loopback (mcpserver.Options.AllowOrigins)
}

// Register declares the address flag (named addrFlag, with its help), the
// token flag (tokenFlag) and --allow-origin on fs.
func (h *HTTP) Register(fs *flag.FlagSet, addrFlag, addrHelp, tokenFlag string) {
	fs.StringVar(&h.Addr, addrFlag, "", addrHelp)
	fs.StringVar(&h.Token, tokenFlag, "", "the bearer token HTTP clients must send (default $RPA_TOKEN)")
	fs.Var((*cliflag.List)(&h.AllowOrigins), "allow-origin", "let browser pages of this origin (https://host[:port]) call the HTTP transport (repeatable; loopback origins of the port always may)")
}

// Check reports a bad --allow-origin; it then takes the token from
// $RPA_TOKEN when none was given.
func (h *HTTP) Check() error {
	if err := mcpserver.CheckOrigins(h.AllowOrigins); err != nil {
		return err
	}
	if h.Token == "" {
		h.Token = os.Getenv("RPA_TOKEN")
	}
	return nil
}

// Listen opens the TCP listener at Addr (mcpserver.HTTPAddr: a bare port
// binds 127.0.0.1).
func (h *HTTP) Listen() (net.Listener, error) {
	return net.Listen("tcp", mcpserver.HTTPAddr(h.Addr))
}
