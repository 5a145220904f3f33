//go:build !linux

package ui

import (
	"errors"
	"time"
)

// browserPIDs is not known here: finding a browser by its command line is
// Linux only (/proc).
func browserPIDs(dir string) ([]int, error) { return nil, errors.ErrUnsupported }

// stopBrowsers cannot find the browser here.
func stopBrowsers(dir string, grace time.Duration) (int, error) { return 0, errors.ErrUnsupported }

// processName is unknown here.
func processName(pid int) string { return "rpa" }
