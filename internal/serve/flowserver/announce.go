package flowserver

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/localctl"
	"github.com/rpa-dev/rpa/internal/link/connect"
)

// A serving process announces itself in $RPA_HOME's local control registry
// (internal/host/localctl, kind serve: $RPA_HOME/ctl/serve-PID.json) while it
// serves, with what it serves and its gateway link's state, so that the
// Status page of an `rpa ui` console on the same $RPA_HOME shows it. The
// entry holds no token and no credentials; it is removed when the serving
// ends (a killed process's entry is ignored: its pid is gone).

type announcement struct {
	mu     sync.Mutex
	serves []string
	gw     string
	state  string
	reg    *localctl.Registration
}

var announcements sync.Map // *Server -> *announcement

func (s *Server) ann() *announcement {
	a, _ := announcements.LoadOrStore(s, &announcement{})
	return a.(*announcement)
}

// write registers or updates the entry; a.mu is held.
func (a *announcement) write(s *Server) {
	e := localctl.Entry{Kind: localctl.KindServe, Program: program(), Serves: a.serves, Gateway: a.gw, GatewayState: a.state}
	var err error
	if a.reg == nil {
		a.reg, err = localctl.Register(home.Dir(), e)
	} else {
		err = a.reg.Update(e)
	}
	if err != nil && s.Log != nil {
		s.Log.Warn("the console's Status page will not show this process", "err", err)
	}
}

// announce adds what (for people: "MCP over stdio") to this process's
// entry; the returned func takes it back, removing the entry with the last.
func (s *Server) announce(what string) func() {
	a := s.ann()
	a.mu.Lock()
	a.serves = append(a.serves, what)
	a.write(s)
	a.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			for i, w := range a.serves {
				if w == what {
					a.serves = append(a.serves[:i:i], a.serves[i+1:]...)
					break
				}
			}
			if len(a.serves) == 0 && a.reg != nil {
				_ = a.reg.Close()
				a.reg = nil
				a.gw, a.state = "", ""
				return
			}
			if a.reg != nil {
				a.write(s)
			}
		})
	}
}

// linkState is the OnState of the link to rawURL: the entry shows the
// gateway (its URL without credentials or query) and the link's state,
// then next (when set) is called.
func (s *Server) linkState(rawURL string, next func(connect.State)) func(connect.State) {
	gw := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		gw = u.String()
	}
	a := s.ann()
	return func(st connect.State) {
		a.mu.Lock()
		a.gw, a.state = gw, st.String()
		if a.reg != nil {
			a.write(s)
		}
		a.mu.Unlock()
		if next != nil {
			next(st)
		}
	}
}

// program is this process for people: "rpa serve" (never its flags: they
// may hold tokens).
func program() string {
	p := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if len(os.Args) > 1 && os.Args[1] != "" && !strings.HasPrefix(os.Args[1], "-") && !strings.ContainsAny(os.Args[1], "/\\.=:") {
		p += " " + os.Args[1]
	}
	return p
}
