package runs

import (
	"database/sql"
	"fmt"
	"strings"
)

// A column that a later version added to a table of the store: Open adds
// it to a database an older version created (ALTER TABLE ... ADD COLUMN),
// once; a database that has it already is left alone.
type column struct {
	table, name, decl string // decl: the type and default, e.g. "TEXT NOT NULL DEFAULT ''"
}

// columnHooks are the columns later versions added to the tables of the
// store (the runs' token, schedule.go's schedule and retry_of); Open
// applies them after schema and schemaHooks (CREATE TABLE IF NOT EXISTS
// leaves an older table as it was). Register one with addColumn from an
// init func.
var columnHooks = []column{{"runs", "token", "TEXT NOT NULL DEFAULT ''"}}

// addColumn registers column name (decl) of table for Open.
func addColumn(table, name, decl string) {
	columnHooks = append(columnHooks, column{table, name, decl})
}

// addColumns adds the missing columns of columnHooks. Two processes
// opening an old database at once may both try: the loser's "duplicate
// column" is success.
func (s *Store) addColumns() error {
	if err := addMissing(s.db); err != nil {
		return fmt.Errorf("run store: %w", err)
	}
	return nil
}

func addMissing(db *sql.DB) error {
	for _, c := range columnHooks {
		has, err := hasColumn(db, c.table, c.name)
		if err != nil {
			return err
		}
		if has {
			continue
		}
		if _, err := db.Exec(`ALTER TABLE ` + c.table + ` ADD COLUMN ` + c.name + ` ` + c.decl); err != nil {
			if has, err2 := hasColumn(db, c.table, c.name); err2 == nil && has {
				continue
			}
			return fmt.Errorf("adding column %s.%s: %w", c.table, c.name, err)
		}
	}
	return nil
}

// hasColumn reports whether table has a column called name.
func hasColumn(db *sql.DB, table, name string) (bool, error) {
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return false, err
		}
		if strings.EqualFold(n, name) {
			return true, nil
		}
	}
	return false, rows.Err()
}
