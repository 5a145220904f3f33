package runs

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
)

// SQLite's primary result codes for a damaged file (sqlite.org/rescode.html).
const (
	sqliteCorrupt = 11 // SQLITE_CORRUPT: "database disk image is malformed"
	sqliteNotADB  = 26 // SQLITE_NOTADB: "file is not a database"
)

// errCorrupt is what quickCheck returns for a database whose pages are
// damaged although SQLite could open it.
var errCorrupt = errors.New("database disk image is malformed")

// IsCorrupt reports whether err says the run store's database file is
// damaged (SQLITE_CORRUPT, SQLITE_NOTADB, or a failed quick_check) rather
// than busy, unreadable or on a full disk: only such a file is moved aside.
func IsCorrupt(err error) bool {
	if errors.Is(err, errCorrupt) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteCorrupt, sqliteNotADB:
			return true
		}
	}
	return false
}

// quickCheck runs PRAGMA quick_check (a pass over every page, without
// the index cross-checks of integrity_check): errCorrupt, or SQLite's own
// error, when the file is damaged.
func quickCheck(db *sql.DB) error {
	rows, err := db.Query(`PRAGMA quick_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var first string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if first == "" {
			first = line
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if first != "ok" {
		return fmt.Errorf("%w: %s", errCorrupt, first)
	}
	return nil
}

// moveAside renames a corrupt database and its WAL and shared-memory files
// to PATH.corrupt-20060102T150405Z (+ -wal, -shm) and returns the new
// path. A file another process moved first is not an error.
func moveAside(path string, now time.Time) (string, error) {
	to := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+suffix, to+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return to, nil
}

// CheckStore looks at the run store's database under home without
// changing it (read-only): nil when it is sound or does not exist yet, else
// the error that would make the next Open move it aside (IsCorrupt) or stop
// it. rpa doctor reports it.
func CheckStore(home string) error {
	path := filepath.Join(home, "runs", DBName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if err := quickCheck(db); err != nil {
		return fmt.Errorf("run store %s: %w", path, err)
	}
	return nil
}
