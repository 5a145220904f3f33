package hitl

// OrderUsage is the help of a --hitl flag (rpa run, serve, connect): the
// order ParseOrder reads.
const OrderUsage = "who answers `ask` and hitl_prompt, in order: channels among client (the MCP caller's elicitation), desktop (a native dialog), terminal; \"none\" for none (default client,desktop,terminal)"

// NewConfig is the Config of a --hitl order ("" = DefaultOrder): the
// desktop dialog and, when term is not nil, the terminal. A bad order is
// ParseOrder's error.
func NewConfig(order string, term Channel) (*Config, error) {
	cfg := &Config{Desktop: &Desktop{}, Terminal: term}
	if order != "" {
		o, err := ParseOrder(order)
		if err != nil {
			return nil, err
		}
		cfg.Order = o
	}
	return cfg, nil
}

// ServerConfig is NewConfig for a process that serves flows (rpa serve,
// rpa connect): its terminal is the controlling terminal (OpenTerminal,
// never stdin, which may carry the protocol), none when there is none.
func ServerConfig(order string) (*Config, error) {
	var term Channel
	if t, err := OpenTerminal(); err == nil {
		term = t
	}
	return NewConfig(order, term)
}

// NoDisplay says why a browser window cannot open here, ending with fix;
// "" when it can (HasDisplay). Without this check Chromium would only print
// its own X11 errors and exit.
func NoDisplay(fix string) string {
	if HasDisplay() {
		return ""
	}
	return "no display to open a browser window on (DISPLAY and WAYLAND_DISPLAY are unset); " + fix
}
