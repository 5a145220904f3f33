package lang

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

// notUTF8 reports a source that is not UTF-8 text as one error at its first
// bad byte, before any parsing (whose errors would only follow from it).
// A UTF-8 byte order mark is fine; UTF-16 is named as such.
func notUTF8(filename string, src []byte) diag.Diagnostics {
	if utf8.Valid(src) {
		return nil
	}
	var ds diag.Diagnostics
	if bytes.HasPrefix(src, []byte{0xFF, 0xFE}) || bytes.HasPrefix(src, []byte{0xFE, 0xFF}) {
		pos := ast.Pos{Line: 1, Col: 1}
		ds.Errorf(ast.Range{File: filename, Start: pos, End: ast.Pos{Line: 1, Col: 2, Offset: 1}},
			"the file is UTF-16 text, not UTF-8").Detail = "save it as UTF-8"
		return ds
	}
	off, line, col := 0, 1, 1
	for off < len(src) {
		r, n := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		off += n
	}
	start := ast.Pos{Line: line, Col: col, Offset: off}
	ds.Errorf(ast.Range{File: filename, Start: start, End: ast.Pos{Line: line, Col: col + 1, Offset: off + 1}},
		"the file is not UTF-8 text (byte 0x%02X)", src[off]).Detail =
		fmt.Sprintf("save it as UTF-8 (it may be Latin-1 or Windows-1252: convert it with `iconv -f WINDOWS-1252 -t UTF-8 %s`)", filename)
	return ds
}
