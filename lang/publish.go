package lang

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/rpa-dev/rpa/lang/diag"
)

// LoadInFolder loads src as the flow file dest would load once written into its folder (what
// `rpa publish` checks before writing): the folder's flows are loaded as LoadDir does, with src in
// place of any file at dest, so dest's `call` targets and their `with:` keys are resolved among
// the flows that are really there. f is nil when dest would not load. broken names, sorted, the
// other flows of the folder that load now and would not once dest is written (a caller whose
// `with:` no longer fits, two files declaring one NAME). ds holds dest's diagnostics, then those
// of the broken files.
func LoadInFolder(dest string, src []byte) (f *Flow, broken []string, ds diag.Diagnostics) {
	dir := filepath.Dir(dest)
	onDisk, _ := FlowFiles(dir)
	paths := append([]string(nil), onDisk...)
	have := false
	for _, p := range paths {
		if sameFile(p, dest) {
			have = true
		}
	}
	if !have {
		paths = append(paths, dest)
	}
	read := func(p string) ([]byte, error) {
		if sameFile(p, dest) || filepath.Clean(p) == filepath.Clean(dest) {
			return src, nil
		}
		return os.ReadFile(p)
	}
	before, _ := loadFolder(onDisk, os.ReadFile)
	after, all := loadFolder(paths, read)
	for _, fl := range after {
		if filepath.Clean(fl.Path) == filepath.Clean(dest) || sameFile(fl.Path, dest) {
			f = fl
		}
	}
	brokenPath := map[string]bool{}
	for name, fl := range before {
		if _, ok := after[name]; !ok && filepath.Clean(fl.Path) != filepath.Clean(dest) {
			broken = append(broken, name)
			brokenPath[filepath.Clean(fl.Path)] = true
		}
	}
	sort.Strings(broken)
	var mine, theirs diag.Diagnostics
	for _, d := range all {
		switch {
		case filepath.Clean(d.Subject.File) == filepath.Clean(dest):
			mine = append(mine, d)
		case brokenPath[filepath.Clean(d.Subject.File)]:
			theirs = append(theirs, d)
		}
	}
	return f, broken, append(mine, theirs...)
}
