package rod

import (
	"log/slog"
	"strings"
	"sync"
)

// Chromium's sandbox stays on for every browser rpa launches, unless it
// cannot work: rpa runs as root (Chromium refuses to start sandboxed as
// root), or the kernel refused it (no user namespaces and no setuid
// sandbox helper: the browser exits at start saying so). The refusal is
// detected at the first launch that meets it, said once in the log, and
// later launches of this process start with --no-sandbox at once.

var (
	sandboxMu     sync.Mutex
	sandboxReason string // why the sandbox is off after a refusal ("" = not refused)
)

// SandboxOff says why browsers launched by this process run without
// Chromium's sandbox (--no-sandbox): "running as root", or the kernel's
// refusal as the browser reported it; "" when they run sandboxed.
func SandboxOff() string {
	if r := rootReason(); r != "" {
		return r
	}
	sandboxMu.Lock()
	defer sandboxMu.Unlock()
	return sandboxReason
}

// sandboxRefusals are what Chromium prints when it cannot set up its
// sandbox (zygote_host_impl_linux.cc, sandbox/linux).
var sandboxRefusals = []string{
	"No usable sandbox",
	"Failed to move to new namespace",
	"setuid sandbox",
	"SUID sandbox",
	"sandbox_host_linux",
}

// sandboxRefused finds, in a browser's output, the line saying the sandbox
// cannot work ("" when there is none).
func sandboxRefused(out string) string {
	for _, line := range strings.Split(out, "\n") {
		for _, r := range sandboxRefusals {
			if strings.Contains(line, r) {
				if i := strings.LastIndex(line, "] "); i >= 0 {
					line = line[i+2:]
				}
				return strings.TrimSpace(line)
			}
		}
	}
	return ""
}

// refuseSandbox records (once) that the kernel refused the sandbox and
// says so in the log.
func refuseSandbox(line string) {
	sandboxMu.Lock()
	defer sandboxMu.Unlock()
	if sandboxReason != "" {
		return
	}
	sandboxReason = "the kernel refuses Chromium's sandbox (" + line + ")"
	slog.Warn("browsers run without Chromium's sandbox: "+sandboxReason,
		"fix", "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or install the browser's setuid chrome-sandbox helper")
}
