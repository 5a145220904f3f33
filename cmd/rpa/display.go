package main

import "github.com/rpa-dev/rpa/hitl"

// noDisplay says why a browser window cannot open here, ending with fix;
// "" when it can (Windows, macOS, or DISPLAY / WAYLAND_DISPLAY set). Without
// it Chromium would only print its own X11 errors and exit.
func noDisplay(fix string) string {
	if hitl.HasDisplay() {
		return ""
	}
	return "no display to open a browser window on (DISPLAY and WAYLAND_DISPLAY are unset); " + fix
}
