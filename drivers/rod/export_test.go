package rod

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
)

// IsOutOfProcess reports whether f is an iframe document entered through
// its own target (site isolation on); for tests.
func IsOutOfProcess(f drivers.Frame) bool {
	fr, ok := f.(*frame)
	return ok && fr.oopif
}

// Endpoint returns the remote endpoint a browser was attached through
// ("" for a launched one); for tests.
func Endpoint(b drivers.Browser) string {
	if br, ok := b.(*browser); ok {
		return br.endpoint
	}
	return ""
}

// VerifyFill runs fill's closing check alone on el (the engine's
// afterFill: the text guard disarmed, the page let react for a tick, then
// whether el holds value and kept the focus), as Fill runs it after the
// text went in; for the benchmark of what the check adds to a fill. ok is
// whether el holds value.
func VerifyFill(ctx context.Context, el drivers.Element, value string) (ok bool, err error) {
	e, isRod := el.(*element)
	if !isRod {
		return false, errors.New("not an element of drivers/rod")
	}
	res, err := e.value(ctx, "afterFill", value, true)
	if err != nil {
		return false, err
	}
	return res.Arr()[0].Bool(), nil
}

// Commands counts the DevTools commands a browser sends (see
// CountCommands).
type Commands struct {
	mu      sync.Mutex
	methods []string
	sizes   []int // each command's size in bytes, in the order of methods
}

// CountCommands has the next browser started or attached send its
// DevTools commands through the returned counter.
func CountCommands() *Commands {
	c := &Commands{}
	w := func(t cdp.WebSocketable) cdp.WebSocketable { return &countingConn{WebSocketable: t, c: c} }
	wrapTransport.Store(&w)
	return c
}

// Take returns the methods of the commands sent since the last Take, in
// order.
func (c *Commands) Take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.methods
	c.methods, c.sizes = nil, nil
	return out
}

// TakeSized is Take with each command's size in bytes.
func (c *Commands) TakeSized() ([]string, []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, n := c.methods, c.sizes
	c.methods, c.sizes = nil, nil
	return m, n
}

type countingConn struct {
	cdp.WebSocketable
	c *Commands
}

func (t *countingConn) Send(data []byte) error {
	var req struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(data, &req) == nil && req.Method != "" {
		t.c.mu.Lock()
		t.c.methods = append(t.c.methods, req.Method)
		t.c.sizes = append(t.c.sizes, len(data))
		t.c.mu.Unlock()
	}
	return t.WebSocketable.Send(data)
}

// ClickAt presses and releases the left button at (x, y) of p's viewport
// (CSS pixels), with no checks; for tests of what a person's click does.
func ClickAt(ctx context.Context, p drivers.Page, x, y float64) error {
	pg, ok := p.(*page)
	if !ok {
		return errors.New("not a page of drivers/rod")
	}
	rp := pg.rp.Context(ctx)
	pt := proto.Point{X: x, Y: y}
	if err := mouse(rp, proto.InputDispatchMouseEventTypeMouseMoved, pt, proto.InputMouseButtonNone, 0); err != nil {
		return err
	}
	if err := mouse(rp, proto.InputDispatchMouseEventTypeMousePressed, pt, proto.InputMouseButtonLeft, 1); err != nil {
		return err
	}
	return mouse(rp, proto.InputDispatchMouseEventTypeMouseReleased, pt, proto.InputMouseButtonLeft, 1)
}

// SetProcessGroup and KillProcessGroup are the launcher's own process-group
// helpers (procgroup_*.go), so a test's extra browser is started and ended
// the same way on every OS; for tests.
var (
	SetProcessGroup  = setProcessGroup
	KillProcessGroup = killProcessGroup
)

// PresetPrefs is presetPrefs; for tests.
var PresetPrefs = presetPrefs
