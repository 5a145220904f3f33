package profiles

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	_ "modernc.org/sqlite" // database/sql driver "sqlite" (no cgo)
)

// ScrubMinLength is the shortest secret Scrub looks for (in characters):
// a shorter one would match all over a profile (the masking rule of
// interp.MinSubstring).
const ScrubMinLength = 4

// ScrubReport says what Scrub changed.
type ScrubReport struct {
	// Rows is how many database rows holding a secret were deleted.
	Rows int
	// Databases are the SQLite files rewritten (paths relative to the
	// profile folder), e.g. Default/History.
	Databases []string
	// Removed are the other files deleted because they held a secret
	// (cache entries, session files), relative to the profile folder.
	Removed []string
}

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// Scrub removes every trace of secrets from a browser profile folder whose
// browser has closed (call it only then: Chromium holds its files while it
// runs). It looks for each secret of at least ScrubMinLength characters as
// written, in its URL-escaped spellings (query and path escaping, as a
// browser writes an address) and in UTF-16 (as a session file keeps what
// was typed into a tab's form fields). In a SQLite database (History,
// Favicons, Top Sites, Shortcuts, Web Data's autocomplete, Login Data,
// ...) every row holding one is deleted and the file rewritten (VACUUM,
// so no deleted page keeps the text); any other file holding one (HTTP
// cache entries, Sessions files) is deleted. A database
// that still holds a secret after that is deleted too. Files that cannot be
// read are skipped and reported in the error; a file gone between the
// listing and its reading (a SQLite journal the scrub of its database
// deleted, say History-journal) is no error.
//
// Chromium has no DevTools call that forgets a visit, so this is how a
// navigation to an address holding a secret leaves no trace in a
// persistent profile: `rpa run` scrubs after closing its browser and the
// profiles Pool after closing a profile's browser (Lease.AddSecrets).
func Scrub(dir string, secrets []string) (*ScrubReport, error) {
	needles := scrubNeedles(secrets)
	rep := &ScrubReport{}
	if len(needles) == 0 {
		return rep, nil
	}
	var errs []error
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			return nil
		}
		if !holdsAny(b, needles) {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if bytes.HasPrefix(b, sqliteMagic) {
			n, err := scrubDB(path, needles)
			rep.Rows += n
			if err == nil {
				if b, err = os.ReadFile(path); err == nil && !holdsAny(b, needles) {
					rep.Databases = append(rep.Databases, rel)
					return nil
				}
			}
			// Not clean (or not a database we can open): the file goes.
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			return nil
		}
		rep.Removed = append(rep.Removed, rel)
		return nil
	})
	if walkErr != nil {
		errs = append(errs, walkErr)
	}
	return rep, errors.Join(errs...)
}

// scrubNeedles returns the byte strings to look for.
func scrubNeedles(secrets []string) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, s := range secrets {
		if utf8.RuneCountInString(s) < ScrubMinLength {
			continue
		}
		for _, v := range []string{s, url.QueryEscape(s), url.PathEscape(s), strings.ReplaceAll(url.QueryEscape(s), "+", "%20"),
			utf16Bytes(s, binary.LittleEndian), utf16Bytes(s, binary.BigEndian)} {
			if !seen[v] {
				seen[v] = true
				out = append(out, []byte(v))
			}
		}
	}
	return out
}

// utf16Bytes is s in UTF-16 of byte order o: how Chromium's session files
// keep a tab's form state (the values typed into its fields) and how a
// UTF-16 database keeps text.
func utf16Bytes(s string, o binary.AppendByteOrder) string {
	units := utf16.Encode([]rune(s))
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		b = o.AppendUint16(b, u)
	}
	return string(b)
}

func holdsAny(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// scrubDB deletes the rows of every table that hold a needle in any
// column, then rewrites the file.
func scrubDB(path string, needles [][]byte) (int, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(2000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return 0, err
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err == nil {
			tables = append(tables, n)
		}
	}
	rows.Close()
	total := 0
	for _, t := range tables {
		cols, err := tableColumns(db, t)
		if err != nil || len(cols) == 0 {
			continue
		}
		var conds []string
		var args []any
		for _, c := range cols {
			for _, n := range needles {
				conds = append(conds, fmt.Sprintf("instr(CAST(%s AS BLOB), ?) > 0", quoteIdent(c)))
				args = append(args, n)
			}
		}
		res, err := db.Exec("DELETE FROM "+quoteIdent(t)+" WHERE "+strings.Join(conds, " OR "), args...)
		if err != nil {
			continue // a virtual table of a module we lack, say
		}
		if n, err := res.RowsAffected(); err == nil {
			total += int(n)
		}
	}
	if _, err := db.Exec("VACUUM"); err != nil {
		return total, err
	}
	return total, nil
}

func tableColumns(db *sql.DB, table string) ([]string, error) {
	rows, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err == nil {
			cols = append(cols, c)
		}
	}
	return cols, rows.Err()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
