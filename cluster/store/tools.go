package main

/*
#include <stdlib.h>
#include <sqlite3.h>
*/
import "C"

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/canonical/go-dqlite/client"
	"github.com/canonical/go-dqlite/driver"
)

// openCluster connects as a client (no node in this process) to the cluster at the addresses.
func openCluster(addresses string) (*sql.DB, error) {
	if addresses == "" {
		return nil, errors.New("-cluster is required (comma-separated dqlite addresses)")
	}
	store := client.NewInmemNodeStore()
	var nodes []client.NodeInfo
	for _, a := range strings.Split(addresses, ",") {
		nodes = append(nodes, client.NodeInfo{Address: strings.TrimSpace(a)})
	}
	store.Set(context.Background(), nodes)
	drv, err := driver.New(store, driver.WithConnectionTimeout(5*time.Second), driver.WithContextTimeout(10*time.Second))
	if err != nil {
		return nil, err
	}
	name := "dqlite-scribe-client"
	sql.Register(name, drv)
	return sql.Open(name, databaseName)
}

// statements splits SQL text into complete statements the way the sqlite3 shell does: at a ";"
// where sqlite3_complete says the text so far is whole (a trigger's body keeps its ";").
func statements(text string) []string {
	var out []string
	start := 0
	inQuote := byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inQuote != 0 {
			if c == inQuote {
				inQuote = 0
			}
			continue
		}
		switch c {
		case '\'', '"', '`':
			inQuote = c
		case '-':
			if i+1 < len(text) && text[i+1] == '-' {
				if k := strings.IndexByte(text[i:], '\n'); k >= 0 {
					i += k
				} else {
					i = len(text)
				}
			}
		case ';':
			candidate := text[start : i+1]
			cs := C.CString(candidate)
			complete := C.sqlite3_complete(cs) != 0
			C.free(unsafe.Pointer(cs))
			if complete {
				if strings.TrimSpace(strings.TrimSuffix(candidate, ";")) != "" {
					out = append(out, strings.TrimSpace(candidate))
				}
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" && !onlyComments(rest) {
		out = append(out, rest)
	}
	return out
}

func onlyComments(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
			return false
		}
	}
	return true
}

var migrateMarker = regexp.MustCompile(`(?m)^-- migrate ([0-9]+)\n`)

// migrations are the numbered blocks of sql/schema.sql, as extension/sql/store.cpp reads them.
func migrations(schema string) ([]int, []string, error) {
	marks := migrateMarker.FindAllStringSubmatchIndex(schema, -1)
	if len(marks) == 0 {
		return nil, nil, errors.New("no '-- migrate N' blocks")
	}
	var numbers []int
	var blocks []string
	for i, m := range marks {
		n, _ := strconv.Atoi(schema[m[2]:m[3]])
		end := len(schema)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		if len(numbers) > 0 && n <= numbers[len(numbers)-1] {
			return nil, nil, fmt.Errorf("migration %d follows %d", n, numbers[len(numbers)-1])
		}
		numbers = append(numbers, n)
		blocks = append(blocks, schema[m[1]:end])
	}
	return numbers, blocks, nil
}

// migrate brings the store's schema to the last block of sql/schema.sql, each block and its
// user_version in one transaction, through the leader: the same blocks the embedded extension
// runs at open, as plain SQL (the store's connections have no migration code).
func migrate(args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ExitOnError)
	cluster := fs.String("cluster", "", "comma-separated dqlite addresses of the store")
	schemaFile := fs.String("schema", "sql/schema.sql", "the schema with its numbered migration blocks")
	fs.Parse(args)
	schema, err := os.ReadFile(*schemaFile)
	if err != nil {
		return err
	}
	numbers, blocks, err := migrations(string(schema))
	if err != nil {
		return fmt.Errorf("%s: %v", *schemaFile, err)
	}
	db, err := openCluster(*cluster)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("cannot read user_version: %v", err)
	}
	applied := 0
	for i, n := range numbers {
		if n <= version {
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for k, st := range statements(blocks[i]) {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %d, statement %d: %v", n, k+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", n)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %v", n, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: commit: %v", n, err)
		}
		applied++
	}
	fmt.Printf("schema at version %d (%d migrations applied)\n", numbers[len(numbers)-1], applied)
	return nil
}

// runSQL runs a file (or the arguments) through the leader in one transaction and prints each
// read's rows, tab-separated: corpus publication and operators' queries.
func runSQL(args []string) error {
	fs := flag.NewFlagSet("sql", flag.ExitOnError)
	cluster := fs.String("cluster", "", "comma-separated dqlite addresses of the store")
	file := fs.String("file", "", "SQL file to run ('-' for standard input)")
	fs.Parse(args)
	text := strings.Join(fs.Args(), ";\n")
	if *file != "" {
		var data []byte
		var err error
		if *file == "-" {
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(*file)
		}
		if err != nil {
			return err
		}
		text = string(data)
	}
	list := statements(text)
	if len(list) == 0 {
		return errors.New("no statement given")
	}
	db, err := openCluster(*cluster)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for k, st := range list {
		ro, _ := readOnly(st)
		if !ro {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				tx.Rollback()
				return fmt.Errorf("statement %d: %v", k+1, err)
			}
			continue
		}
		rows, err := tx.QueryContext(ctx, st)
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("statement %d: %v", k+1, err)
		}
		columns, _ := rows.Columns()
		for rows.Next() {
			values, err := scanRow(rows, len(columns))
			if err != nil {
				rows.Close()
				tx.Rollback()
				return err
			}
			for i, v := range values {
				if i > 0 {
					out.WriteByte('\t')
				}
				if v != nil {
					fmt.Fprint(out, v)
				}
			}
			out.WriteByte('\n')
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("statement %d: %v", k+1, err)
		}
	}
	return tx.Commit()
}

// scanRow reads the current row's n values as JSON gives them back: INTEGER and REAL as
// numbers, TEXT as strings, NULL as nil, a BLOB as the string of its bytes, a column declared
// DATETIME (which the driver parses) as its text again.
func scanRow(rows *sql.Rows, n int) ([]interface{}, error) {
	values := make([]interface{}, n)
	pointers := make([]interface{}, n)
	for i := range values {
		pointers[i] = &values[i]
	}
	if err := rows.Scan(pointers...); err != nil {
		return nil, err
	}
	for i, v := range values {
		switch x := v.(type) {
		case []byte:
			values[i] = string(x)
		case time.Time:
			values[i] = x.UTC().Format("2006-01-02T15:04:05.000Z")
		}
	}
	return values, nil
}
