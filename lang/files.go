package lang

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/lang/ast"
)

// FlowFiles lists the flow files directly in dir (IsFlowFile, not in
// subfolders, no dot files; a symbolic link only when it points at a file
// of dir itself) as paths joined to dir, in file-name order: the files
// LoadDir loads and `call` looks among.
func FlowFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !IsFlowFile(e.Name()) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 && !linkWithin(dir, p) {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// linkWithin reports whether the symbolic link p resolves to a regular file
// inside folder dir (a link to another flow of the folder). A link out of
// the folder (evil.flow → ~/.ssh/id_ed25519) is no flow file: its target
// would be served, shown in the console's editor and written over there.
func linkWithin(dir, p string) bool {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	fi, err := os.Stat(target)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ErrNoFlow is FindFlow's error when no file of the folder declares the flow.
var ErrNoFlow = errors.New("no such flow")

// FindFlow returns the flow file of dir whose header declares flow name. It
// only parses, so a flow that no longer checks can still be found (to be
// replaced or removed); unreadable files are skipped. The error is
// ErrNoFlow, or the folder's read error.
func FindFlow(dir, name string) (string, error) {
	files, err := FlowFiles(dir)
	if err != nil {
		return "", err
	}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f, _ := Parse(p, src); f != nil && f.Name == name {
			return p, nil
		}
	}
	return "", ErrNoFlow
}

// SetHeader returns the text of a .flow file src (f is its parse) with the
// flow's NAME replaced by name and its description by desc; an empty
// argument keeps what is there. Only the header line changes, from the NAME
// to the end of the line; every other byte is kept, comments included (a
// trailing comment after a bare NAME stays when a description is added).
// The description is written with Go string escapes (the DSL's).
func SetHeader(src []byte, f *ast.File, name, desc string) []byte {
	start, end := f.NameRange.Start.Offset, f.NameRange.End.Offset
	eol := end
	for eol < len(src) && src[eol] != '\n' {
		eol++
	}
	if name == "" {
		name = string(src[start:end])
	}
	rest := string(src[end:eol])
	if desc != "" {
		rest = " " + strconv.Quote(desc)
		if i := strings.Index(string(src[end:eol]), "#"); i >= 0 && !strings.Contains(string(src[end:end+i]), `"`) {
			rest += " " + string(src[end+i:eol]) // a trailing comment after a bare name
		}
	}
	out := append([]byte{}, src[:start]...)
	out = append(out, name+rest...)
	return append(out, src[eol:]...)
}
