package main

// The extension's pure functions on every connection dqlite opens in this process.
//
// dqlite 1.11 has no hook to register SQL functions, but its connections are ordinary SQLite
// connections of this process: sqlite3_auto_extension runs an entry point on each one as it
// opens. The entry is the extension's functions-only one, sqlite3_scribe_functions_init
// (extension/sql/scribe_ext.cpp): deterministic functions and aggregates, no migration, no
// table, no network. The schema's triggers and views call them (scribe_vendor_key,
// scribe_suite_interval, scribe_json…), so every voter must register them before it opens a
// database: any voter may become the leader that runs a statement. A second entry turns on
// foreign keys and turns off cache spilling for each connection.

/*
#cgo LDFLAGS: -ldl -lsqlite3
#include <dlfcn.h>
#include <stdlib.h>
#include <sqlite3.h>

// Every connection of the store enforces foreign keys, as the embedded store does (Migrate turns
// them on for each connection it opens), and never spills a transaction's pages to the WAL
// before its COMMIT. dqlite 1.11.1 replicates a transaction at its COMMIT; when a large
// transaction (a batch of submissions, a page of grades: a few MB) outgrew the page cache and
// SQLite spilled pages early, the leader at times answered the COMMIT "disk I/O error"
// (SQLITE_IOERR_SHORT_READ) after the frames had been replicated and applied, its connection then
// read stale pages, and the next transaction wrote index pages built on them: rows missing from
// indexes, found by PRAGMA integrity_check (measured, 2,000-3,000 submissions in transactions of
// 50: 7 runs corrupt, each after such an answer, and the 3 runs without one intact; with spilling
// off, 6 runs of 3,000 without one error, all intact; tests/cluster/test_store.py,
// test_8_large_transactions_leave_the_database_intact).
static int scribe_store_connection(sqlite3* db, char** err, const void* api) {
	(void)api;
	return sqlite3_exec(db, "PRAGMA foreign_keys = ON; PRAGMA cache_spill = OFF", NULL, NULL, err);
}

static const char* scribe_register(const char* path) {
	void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) return dlerror();
	void* entry = dlsym(handle, "sqlite3_scribe_functions_init");
	if (!entry) return "the library has no sqlite3_scribe_functions_init";
	if (sqlite3_auto_extension((void (*)(void))entry) != SQLITE_OK ||
	    sqlite3_auto_extension((void (*)(void))scribe_store_connection) != SQLITE_OK)
		return "sqlite3_auto_extension failed";
	return NULL;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// registerFunctions loads the extension at path (build/scribe.so) for every later connection.
func registerFunctions(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.scribe_register(cpath); msg != nil {
		return fmt.Errorf("cannot load the scribe functions from %s: %s", path, C.GoString(msg))
	}
	return nil
}
