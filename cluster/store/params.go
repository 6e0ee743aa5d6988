package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// scanSQL walks a statement as SQLite's tokenizer sees it, skipping string literals, quoted
// identifiers and comments, and calls word for each bare word and param for each parameter
// ("?", "?3", ":name", "@name", "$name").
func scanSQL(sql string, word func(string), param func(string)) error {
	identChar := func(c byte) bool {
		return c == '_' || c == '$' || c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
	}
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			end := i + 1
			for {
				k := strings.IndexByte(sql[end:], c)
				if k < 0 {
					return fmt.Errorf("unterminated quote at byte %d", i)
				}
				end += k + 1
				if end < len(sql) && sql[end] == c { // a doubled quote is the quote itself
					end++
					continue
				}
				break
			}
			i = end
		case c == '[':
			k := strings.IndexByte(sql[i:], ']')
			if k < 0 {
				return fmt.Errorf("unterminated [identifier] at byte %d", i)
			}
			i += k + 1
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			k := strings.IndexByte(sql[i:], '\n')
			if k < 0 {
				i = len(sql)
			} else {
				i += k + 1
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			k := strings.Index(sql[i+2:], "*/")
			if k < 0 {
				i = len(sql)
			} else {
				i += k + 4
			}
		case c == '?':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			param(sql[i:j])
			i = j
		case c == ':' || c == '@' || c == '$':
			j := i + 1
			for j < len(sql) && identChar(sql[j]) {
				j++
			}
			if j > i+1 {
				param(sql[i:j])
			}
			i = j
		case identChar(c):
			j := i
			for j < len(sql) && identChar(sql[j]) {
				j++
			}
			word(sql[i:j])
			i = j
		default:
			i++
		}
	}
	return nil
}

// parameterNames lists a statement's parameters in the order SQLite numbers them.
//
// dqlite's protocol binds values by position only, and the endpoint files use named parameters
// (":vendor"). SQLite gives each distinct name the next free index at its first occurrence, "?"
// the next index, and "?NNN" index NNN; names[i] is parameter i+1, "" for an anonymous "?".
func parameterNames(sql string) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	var bad error
	err := scanSQL(sql, func(string) {}, func(p string) {
		switch {
		case p == "?":
			names = append(names, "")
		case p[0] == '?':
			n, err := strconv.Atoi(p[1:])
			if err != nil || n < 1 || n > 32766 {
				bad = fmt.Errorf("parameter %s is out of range", p)
				return
			}
			for len(names) < n {
				names = append(names, "")
			}
			names[n-1] = p
		case !seen[p]:
			seen[p] = true
			names = append(names, p)
		}
	})
	if err == nil {
		err = bad
	}
	return names, err
}

// readOnly tells whether a statement only reads: it starts with SELECT or VALUES, or with WITH
// and writes nowhere. dqlite replicates a write only when it is made through an exec request: a
// write inside a query would change the leader's copy alone.
func readOnly(sql string) (bool, error) {
	first := ""
	writes := false
	err := scanSQL(sql, func(w string) {
		u := strings.ToUpper(w)
		if first == "" {
			first = u
		}
		switch u {
		case "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "PRAGMA", "ATTACH", "DETACH", "VACUUM", "REINDEX", "ANALYZE":
			writes = true
		}
	}, func(string) {})
	if err != nil {
		return false, err
	}
	switch first {
	case "SELECT", "VALUES":
		return !writes, nil
	case "WITH":
		return !writes, nil
	}
	return false, nil
}

// bindArgs orders the named values of a request as the statement numbers its parameters.
// A name the statement does not use, or a parameter the request does not give, is an error.
func bindArgs(sql string, params map[string]json.RawMessage) ([]interface{}, error) {
	names, err := parameterNames(sql)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	args := make([]interface{}, len(names))
	for i, name := range names {
		if name == "" {
			return nil, fmt.Errorf("parameter %d has no name: name every parameter (:name)", i+1)
		}
		key := name
		if name[0] != '?' {
			key = name[1:]
		}
		raw, ok := params[key]
		if !ok {
			return nil, fmt.Errorf("missing parameter %s", name)
		}
		used[key] = true
		if args[i], err = jsonToSQL(raw); err != nil {
			return nil, fmt.Errorf("parameter %s: %v", name, err)
		}
	}
	for key := range params {
		if !used[key] {
			return nil, fmt.Errorf("unknown parameter %s: the statement does not use it", key)
		}
	}
	return args, nil
}

// jsonToSQL turns a JSON value into the value SQLite binds: a string as TEXT, an integer that
// fits 64 bits as INTEGER, any other number as REAL, true/false as 1/0, null as NULL.
func jsonToSQL(raw json.RawMessage) (interface{}, error) {
	var v interface{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case string:
		return x, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not a number SQLite can store", x)
		}
		return f, nil
	}
	return nil, fmt.Errorf("an array or object cannot be bound: send its JSON text as a string")
}
