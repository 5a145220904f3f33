package hitl

import (
	"context"
	"errors"
	"os"
	"runtime"
	"time"

	"github.com/ncruces/zenity"

	"github.com/rpa-dev/rpa/core"
)

// Desktop is the desktop channel: a desktop notification, then a native
// entry dialog (zenity on Linux and BSD, the system's own dialogs on
// Windows and macOS, through github.com/ncruces/zenity); the text is
// hidden for passwords. Cancelling the dialog declines; when the
// question's ctx ends the dialog is closed.
type Desktop struct {
	// NoNotify skips the notification.
	NoNotify bool
}

// Name returns "desktop".
func (d *Desktop) Name() string { return ChannelDesktop }

// HasDisplay reports whether a desktop dialog can be shown: always on
// Windows and macOS; elsewhere when DISPLAY or WAYLAND_DISPLAY is set.
func HasDisplay() bool {
	switch runtime.GOOS {
	case "windows", "darwin":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// Ask shows the dialog; unavailable without a display or without zenity
// installed (Linux).
func (d *Desktop) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	if !HasDisplay() {
		return core.Answer{}, Unavailable("no display (DISPLAY and WAYLAND_DISPLAY are unset)")
	}
	if !zenity.IsAvailable() {
		return core.Answer{}, Unavailable("no dialog program (install zenity)")
	}
	if d == nil || !d.NoNotify {
		go func() {
			nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_ = zenity.Notify("rpa is asking: "+q.Title, zenity.Title("rpa"), zenity.Context(nctx), zenity.InfoIcon)
		}()
	}
	text := q.Title
	if q.Message != "" {
		text += "\n\n" + q.Message
	}
	opts := []zenity.Option{zenity.Title("rpa: " + q.Title), zenity.Context(ctx), zenity.OKLabel("Send"), zenity.CancelLabel("Decline")}
	if q.Input == "password" {
		opts = append(opts, zenity.HideText())
	}
	s, err := zenity.Entry(text, opts...)
	switch {
	case ctx.Err() != nil:
		return core.Answer{}, ctx.Err()
	case errors.Is(err, zenity.ErrCanceled):
		return core.Answer{Status: core.AnswerDeclined}, nil
	case err != nil:
		return core.Answer{}, Unavailable("the dialog failed: %v", err)
	case s == "":
		return core.Answer{Status: core.AnswerDeclined}, nil
	}
	return core.Answer{Status: core.AnswerAnswered, Text: s}, nil
}
