package stdlib

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/core"
)

// Local file policy of served flows (Host.NoFiles).

// filesHint is how to lift the refusal, at the end of each message.
const filesHint = "(rpa serve --allow-files enables them)"

// checkOpenFile refuses a file: URL when the host said NoFiles; u already
// passed actions.CheckOpenURL.
func checkOpenFile(c *Call, u string) error {
	if !c.Env.Host().NoFiles {
		return nil
	}
	clean := strings.TrimSpace(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(u))
	pu, err := url.Parse(clean)
	if err != nil || !strings.EqualFold(pu.Scheme, "file") {
		return nil
	}
	return &core.Error{Kind: core.KindNavigation, Msg: "open: file: URLs are off for served flows " + filesHint, Final: true}
}

// checkLocalPath refuses path (what action reads or writes, the `what` of
// the message) when the host said NoFiles and path is not inside the temp
// dir. Symlinks are resolved as far as the path exists, so a link in the
// temp dir cannot lead outside it.
func checkLocalPath(c *Call, action, what, path string) error {
	if !c.Env.Host().NoFiles {
		return nil
	}
	if underTemp(path) {
		return nil
	}
	return &core.Error{Kind: core.KindExecRefused, Final: true,
		Msg: action + ": " + what + " " + strconv.Quote(path) + " is outside the temp dir; local files are off for served flows " + filesHint}
}

// underTemp reports whether path, made absolute with its symlinks resolved
// (those of its longest existing prefix), lies in os.TempDir().
func underTemp(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	tmp := resolve(os.TempDir())
	p := resolve(abs)
	rel, err := filepath.Rel(tmp, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve evaluates the symlinks of p's longest existing prefix and
// appends the rest unchanged.
func resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
