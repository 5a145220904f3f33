//go:build !linux

package mcpserver

import (
	"errors"
	"os"
)

// openTTY is only implemented on Linux; elsewhere hitl has no terminal
// channel (questions time out) until a native dialog lands.
func openTTY() (*os.File, error) { return nil, errors.New("no terminal channel on this platform") }

// noEcho is a no-op outside Linux.
func noEcho(*os.File) func() { return nil }
