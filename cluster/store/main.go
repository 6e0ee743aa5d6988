// scribe-store — one voter of the replicated store (docs/scale-out.md).
//
// A store node is a dqlite node (Raft over SQLite; go-dqlite's app package, the stack LXD runs
// on) plus a small HTTP API on a cluster-internal address through which graders and operators
// run SQL against the system of record. Every statement goes to the current leader and a write
// returns only after a quorum of voters has it. The node's connections carry the extension's
// pure functions (functions.go), never its grading, network or migration code.
//
//	scribe-store serve -dir D -raft 127.0.0.1:9001 [-join A,B] -http 127.0.0.1:9101 -extension build/scribe.so
//	scribe-store migrate -cluster A,B,C -schema sql/schema.sql
//	scribe-store sql -cluster A,B,C [-file F] "statement"
//	scribe-store members -cluster A,B,C
//	scribe-store remove -cluster A,B,C -address D
//	scribe-store backup -cluster A,B,C -out FILE
//	scribe-store recover -dir D -keep A[,B]        (a stopped node, when a majority is lost for good)
//
// The API (JSON in and out; see api.go):
//
//	POST /v1/exec    {"statements": [{"sql": "...", "params": {"name": value}}]}   one transaction
//	POST /v1/query   {"sql": "...", "params": {...}}                                  a read
//	GET  /v1/status  this node, the leader and the members with their roles
package main

import (
	"fmt"
	"os"
)

func usage() {
	fmt.Fprintf(os.Stderr, "usage: scribe-store serve|migrate|sql|members|remove|backup|recover [flags] (scribe-store <command> -h for the flags)\n")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "migrate":
		err = migrate(os.Args[2:])
	case "sql":
		err = runSQL(os.Args[2:])
	case "members":
		err = members(os.Args[2:])
	case "remove":
		err = remove(os.Args[2:])
	case "backup":
		err = backup(os.Args[2:])
	case "recover":
		err = recoverQuorum(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "scribe-store %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
