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
	guess := "Latin-1 or Windows-1252: convert it with `iconv -f WINDOWS-1252 -t UTF-8 %s`"
	if looksGB18030(src) {
		guess = "GBK or GB18030 (Chinese): convert it with `iconv -f GB18030 -t UTF-8 %s`"
	}
	ds.Errorf(ast.Range{File: filename, Start: start, End: ast.Pos{Line: line, Col: col + 1, Offset: off + 1}},
		"the file is not UTF-8 text (byte 0x%02X)", src[off]).Detail =
		fmt.Sprintf("save it as UTF-8 (it may be "+guess+")", filename)
	return ds
}

// looksGB18030 reports whether every byte of b outside ASCII forms a
// GB18030 sequence (GBK's two bytes: lead 0x81-0xFE, trail 0x40-0xFE but
// 0x7F; or GB18030's four: 0x81-0xFE, 0x30-0x39, 0x81-0xFE, 0x30-0x39),
// with at least one such sequence: the encoding of a Chinese desktop's
// editor when it is not UTF-8. Windows-1252 text rarely passes (an accented
// letter is followed by ASCII).
func looksGB18030(b []byte) bool {
	seen := false
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			i++
			continue
		case c == 0x80 || c == 0xFF:
			return false
		case i+1 < len(b) && b[i+1] >= 0x40 && b[i+1] <= 0xFE && b[i+1] != 0x7F:
			i += 2
		case i+3 < len(b) && b[i+1] >= 0x30 && b[i+1] <= 0x39 && b[i+2] >= 0x81 && b[i+2] <= 0xFE && b[i+3] >= 0x30 && b[i+3] <= 0x39:
			i += 4
		default:
			return false
		}
		seen = true
	}
	return seen
}
