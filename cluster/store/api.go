package main

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/canonical/go-dqlite/client"
	"github.com/canonical/go-dqlite/driver"
)

type statement struct {
	SQL    string                     `json:"sql"`
	Params map[string]json.RawMessage `json:"params"`
}

type execRequest struct {
	Statements []statement `json:"statements"`
}

type execResult struct {
	RowsAffected int64 `json:"rows_affected"`
	LastInsertID int64 `json:"last_insert_id"`
}

// The most statements one transaction may carry (a corpus publication is the largest user).
const maxStatements = 100000

// exec runs the statements in one transaction on the leader; it answers after the commit has
// reached a quorum. A request whose outcome is unknown (the leader lost, a timeout after the
// commit was sent) answers 503 "unavailable": the caller retries, and a write keyed by an id the
// caller chose (a submission's) then meets its own row as a constraint error, which says the first
// attempt was stored.
func (s *server) exec(w http.ResponseWriter, r *http.Request) {
	var req execRequest
	if !s.decode(w, r, &req) {
		return
	}
	if len(req.Statements) == 0 || len(req.Statements) > maxStatements {
		fail(w, http.StatusBadRequest, "request", "statements: give 1 to %d", maxStatements)
		return
	}
	args := make([][]interface{}, len(req.Statements))
	for i, st := range req.Statements {
		if strings.TrimSpace(st.SQL) == "" {
			fail(w, http.StatusBadRequest, "request", "statement %d: sql is empty", i+1)
			return
		}
		var err error
		if args[i], err = bindArgs(st.SQL, st.Params); err != nil {
			fail(w, http.StatusBadRequest, "params", "statement %d: %v", i+1, err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	results := make([]execResult, len(req.Statements))
	run := func(execer interface {
		ExecContext(context.Context, string, ...interface{}) (sql.Result, error)
	}) (int, error) {
		for i, st := range req.Statements {
			res, err := execer.ExecContext(ctx, st.SQL, args[i]...)
			if err != nil {
				return i, err
			}
			results[i].RowsAffected, _ = res.RowsAffected()
			results[i].LastInsertID, _ = res.LastInsertId()
		}
		return 0, nil
	}
	// The leader runs one write transaction at a time and answers another connection's write
	// with SQLITE_BUSY at once (dqlite has no busy timeout): such a transaction committed nothing,
	// so it is rolled back and run again, with a short randomized wait, until the deadline. So is
	// a transaction of several statements that failed before its COMMIT for any reason but the
	// request's own (a constraint, a statement SQLite rejects): dqlite replicates a transaction
	// only at its commit, and under load its leader answers a statement of a second open
	// transaction with "disk I/O error" as well as with SQLITE_BUSY. Only a failed COMMIT, or a
	// single statement (its own transaction), leaves the outcome unknown.
	// This node's own transactions take turns (txTurn) so that they do not collide with each
	// other; other nodes' still can.
	var failed int
	var err error
	for attempt := 0; ; attempt++ {
		retry := false
		if len(req.Statements) == 1 {
			failed, err = run(s.db) // one statement is its own transaction: one round trip
			retry = err != nil && busy(err)
		} else {
			s.txTurn.Lock()
			var tx *sql.Tx
			if tx, err = s.db.BeginTx(ctx, nil); err != nil {
				retry = true // nothing began
			} else if failed, err = run(tx); err != nil {
				tx.Rollback()
				retry = !requestsFault(err)
			} else if err = tx.Commit(); err != nil {
				if busy(err) {
					tx.Rollback()
					retry = true
				} else {
					failed = -1
				}
			}
			s.txTurn.Unlock()
		}
		if err == nil || !retry || ctx.Err() != nil {
			break
		}
		wait := time.Duration(1+rand.Intn(1<<min(attempt, 5))) * time.Millisecond
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	if err != nil && len(req.Statements) > 1 && failed >= 0 && !requestsFault(err) {
		// the deadline passed before the transaction could run: it committed nothing
		w.Header().Set("Retry-After", "1")
		fail(w, http.StatusServiceUnavailable, "busy", "statement %d: the store could not run the transaction before the deadline (%v); nothing was stored: retry", failed+1, err)
		return
	}
	if err != nil {
		s.sqlError(w, err, failed)
		return
	}
	writeJSON(w, http.StatusOK, map[string]interface{}{"results": results})
}

type queryRequest struct {
	SQL    string                     `json:"sql"`
	Params map[string]json.RawMessage `json:"params"`
}

// query runs one read on the leader (dqlite reads there too: what it answers includes every
// acknowledged write). Values come back as JSON: INTEGER and REAL as numbers, TEXT as strings,
// NULL as null, a BLOB as the string of its bytes.
func (s *server) query(w http.ResponseWriter, r *http.Request) {
	var req queryRequest
	if !s.decode(w, r, &req) {
		return
	}
	ro, err := readOnly(req.SQL)
	if err != nil {
		fail(w, http.StatusBadRequest, "sql", "%v", err)
		return
	}
	if !ro {
		fail(w, http.StatusBadRequest, "not_a_read", "only SELECT, VALUES or a WITH that writes nothing runs through /v1/query; send writes to /v1/exec")
		return
	}
	args, err := bindArgs(req.SQL, req.Params)
	if err != nil {
		fail(w, http.StatusBadRequest, "params", "%v", err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, req.SQL, args...)
	if err != nil {
		s.sqlError(w, err, 0)
		return
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		s.sqlError(w, err, 0)
		return
	}
	out := [][]interface{}{}
	for rows.Next() {
		values, err := scanRow(rows, len(columns))
		if err != nil {
			s.sqlError(w, err, 0)
			return
		}
		out = append(out, values)
	}
	if err := rows.Err(); err != nil {
		s.sqlError(w, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, map[string]interface{}{"columns": columns, "rows": out})
}

// sqlError answers a failed statement: 409 "constraint" for a constraint (the row exists, a
// check failed), 400 "sql" for a statement SQLite rejects, 503 "unavailable" when no leader
// answered or the outcome is unknown.
func (s *server) sqlError(w http.ResponseWriter, err error, statement int) {
	where := ""
	if statement > 0 {
		where = fmt.Sprintf("statement %d: ", statement+1)
	} else if statement < 0 {
		where = "commit: "
	}
	var dqliteErr driver.Error
	var netErr net.Error
	switch {
	case busy(err):
		// retried until the deadline (exec): nothing of the request was stored
		w.Header().Set("Retry-After", "1")
		fail(w, http.StatusServiceUnavailable, "busy", "%sthe store is busy with other writes (%v); nothing was stored: retry", where, err)
	case errors.As(err, &dqliteErr) && dqliteErr.Code&0xff == 19: // SQLITE_CONSTRAINT and its extended codes
		fail(w, http.StatusConflict, "constraint", "%s%s", where, dqliteErr.Message)
	case errors.As(err, &dqliteErr) && (dqliteErr.Code == 1 || dqliteErr.Code&0xff == 20 || dqliteErr.Code&0xff == 25 || dqliteErr.Code&0xff == 18):
		// SQLITE_ERROR (syntax, no such table), MISMATCH, RANGE, TOOBIG: the request's fault
		fail(w, http.StatusBadRequest, "sql", "%s%s", where, dqliteErr.Message)
	case errors.Is(err, driver.ErrNoAvailableLeader), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, sqldriver.ErrBadConn), errors.As(err, &netErr), errors.As(err, &dqliteErr):
		s.logger.Printf("unavailable: %s%v", where, err)
		fail(w, http.StatusServiceUnavailable, "unavailable", "%sthe store could not complete the request (%v); the outcome of a write is unknown: retry it with the same id", where, err)
	default:
		s.logger.Printf("unavailable (unclassified): %s%v", where, err)
		fail(w, http.StatusServiceUnavailable, "unavailable", "%s%v; the outcome of a write is unknown: retry it with the same id", where, err)
	}
}

// requestsFault tells whether err is the request's own doing: a constraint, or a statement
// SQLite rejects (SQLITE_ERROR: syntax, no such table; MISMATCH, RANGE, TOOBIG). Running it
// again would fail again.
func requestsFault(err error) bool {
	var dqliteErr driver.Error
	if !errors.As(err, &dqliteErr) {
		return false
	}
	switch primary := dqliteErr.Code & 0xff; {
	case primary == 1:
		return dqliteErr.Code == 1 // not SQLITE_ERROR_RETRY and the like
	case primary == 19, primary == 20, primary == 25, primary == 18:
		return true
	}
	return false
}

// busy tells whether err is SQLITE_BUSY or SQLITE_LOCKED: the statement did not run.
func busy(err error) bool {
	var dqliteErr driver.Error
	return errors.As(err, &dqliteErr) && (dqliteErr.Code&0xff == 5 || dqliteErr.Code&0xff == 6)
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// status names this node, the leader and the members with their roles, as the leader knows them.
func (s *server) status(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	body := map[string]interface{}{"id": fmt.Sprintf("%#x", s.app.ID()), "address": s.app.Address(), "leader": nil}
	cli, err := s.app.Leader(ctx)
	if err != nil {
		body["error"] = fmt.Sprintf("no leader: %v", err)
		writeJSON(w, http.StatusServiceUnavailable, body)
		return
	}
	defer cli.Close()
	leader, err := cli.Leader(ctx)
	if err == nil && leader != nil {
		body["leader"] = map[string]string{"id": fmt.Sprintf("%#x", leader.ID), "address": leader.Address}
	}
	nodes, err := cli.Cluster(ctx)
	if err != nil {
		body["error"] = fmt.Sprintf("cannot list the members: %v", err)
		writeJSON(w, http.StatusServiceUnavailable, body)
		return
	}
	members := []map[string]string{}
	for _, n := range nodes {
		members = append(members, map[string]string{"id": fmt.Sprintf("%#x", n.ID), "address": n.Address, "role": roleName(n.Role)})
	}
	body["nodes"] = members
	writeJSON(w, http.StatusOK, body)
}

func roleName(r client.NodeRole) string {
	switch r {
	case client.Voter:
		return "voter"
	case client.StandBy:
		return "stand-by"
	case client.Spare:
		return "spare"
	}
	return r.String()
}
