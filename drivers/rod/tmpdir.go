package rod

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// browserTempDir is the folder, inside a browser's user-data dir, that it
// gets as its temporary folder.
const browserTempDir = "rpa-tmp"

// maxSocketPath is the longest path of a Unix socket, with its NUL
// (sockaddr_un.sun_path on Linux; 104 on macOS: the smaller is kept).
const maxSocketPath = 104

// setTempDir gives the browser cmd starts a temporary folder of its own
// inside its user-data dir (--user-data-dir in cmd.Args): TMPDIR (Linux,
// macOS) and TMP and TEMP (Windows). Chromium's own temporary folders
// (org.chromium.Chromium.*) then go with a temporary profile and are
// swept with it, instead of piling up in the system's; what a killed
// browser left there is removed at the next launch on that profile. No
// user-data dir, or one so deep that Chromium's SingletonSocket there
// would pass a Unix socket's path limit (108 bytes, sun_path: Chromium
// exits at start saying "Socket path too long"): cmd is unchanged.
func setTempDir(cmd *exec.Cmd) {
	var udd string
	for _, a := range cmd.Args {
		if v, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
			udd = v
		}
	}
	if udd == "" {
		return
	}
	dir := filepath.Join(udd, browserTempDir)
	if len(dir)+len("/org.chromium.Chromium.XXXXXX/SingletonSocket") >= maxSocketPath {
		return
	}
	_ = os.RemoveAll(dir)
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, "TMPDIR="+dir, "TMP="+dir, "TEMP="+dir)
}
