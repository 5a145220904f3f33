package profiles_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// TestScrubVanishedFileIsNoError: a file listed but gone before it is
// read (a SQLite journal the scrub of its database deleted, as
// History-journal after History) is not an error.
func TestScrubVanishedFileIsNoError(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "Default")
	if err := os.MkdirAll(def, 0o755); err != nil {
		t.Fatal(err)
	}
	const secret = "s3cr3t-token-42"
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(def, "History")))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT)`,
		`INSERT INTO urls (url) VALUES ('http://x/login?tok=` + secret + `'), ('http://x/home')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// An idle (empty, so not hot) rollback journal beside it: SQLite
	// rewrites and deletes it when the scrub commits.
	if err := os.WriteFile(filepath.Join(def, "History-journal"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := profiles.Scrub(dir, []string{secret})
	if err != nil {
		t.Fatalf("Scrub: %v", err)
	}
	if rep.Rows != 1 {
		t.Errorf("rows deleted = %d, want 1", rep.Rows)
	}
	if hits := grepProfile(t, dir, secret); len(hits) > 0 {
		t.Errorf("secret still in %v", hits)
	}
}
