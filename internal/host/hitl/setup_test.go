package hitl

import (
	"runtime"
	"strings"
	"testing"
)

// TestNewConfig: "" keeps the default order; an order is parsed; a bad
// one is ParseOrder's error; the terminal is the one given.
func TestNewConfig(t *testing.T) {
	term := &Terminal{}
	c, err := NewConfig("", term)
	if err != nil || c.Order != nil || c.Terminal != term || c.Desktop == nil {
		t.Errorf("default: %+v %v", c, err)
	}
	c, err = NewConfig("terminal,desktop", nil)
	if err != nil || strings.Join(c.Order, ",") != "terminal,desktop" || c.Terminal != nil {
		t.Errorf("order: %+v %v", c, err)
	}
	if _, err := NewConfig("pigeon", nil); err == nil {
		t.Error("bad order accepted")
	}
}

// TestNoDisplay: without DISPLAY and WAYLAND_DISPLAY the reason ends with
// the fix; with one there is none.
func TestNoDisplay(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("these systems always have a display")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	if msg := NoDisplay("use --headless"); !strings.HasPrefix(msg, "no display") || !strings.HasSuffix(msg, "use --headless") {
		t.Errorf("no display: %q", msg)
	}
	t.Setenv("DISPLAY", ":99")
	if msg := NoDisplay("x"); msg != "" {
		t.Errorf("with DISPLAY: %q", msg)
	}
}
