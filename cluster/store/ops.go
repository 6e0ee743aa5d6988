package main

/*
#include <stdlib.h>
#include <sqlite3.h>

// Folds a WAL beside `path` into the file and leaves one self-contained database: the backup.
static int scribe_checkpoint(const char* path, char** err) {
	sqlite3* db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE", NULL, NULL, err);
	sqlite3_close(db);
	return rc;
}
*/
import "C"

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/canonical/go-dqlite"
	"github.com/canonical/go-dqlite/client"
)

// leader connects to the cluster's leader through any of the addresses.
func leader(ctx context.Context, addresses string) (*client.Client, error) {
	if addresses == "" {
		return nil, errors.New("-cluster is required (comma-separated dqlite addresses)")
	}
	store := client.NewInmemNodeStore()
	var nodes []client.NodeInfo
	for _, a := range strings.Split(addresses, ",") {
		nodes = append(nodes, client.NodeInfo{Address: strings.TrimSpace(a)})
	}
	store.Set(ctx, nodes)
	return client.FindLeader(ctx, store)
}

// onLeader parses a command's flags (-cluster and those `define` adds), connects to the leader
// and runs `do` with it, within 10 s.
func onLeader(name string, args []string, define func(*flag.FlagSet), do func(context.Context, *client.Client) error) error {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	cluster := fs.String("cluster", "", "comma-separated dqlite addresses of the store")
	if define != nil {
		define(fs)
	}
	fs.Parse(args)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cli, err := leader(ctx, *cluster)
	if err != nil {
		return fmt.Errorf("no leader: %v", err)
	}
	defer cli.Close()
	return do(ctx, cli)
}

// members prints the cluster's members: id, address, role, and which one leads.
func members(args []string) error {
	return onLeader("members", args, nil, func(ctx context.Context, cli *client.Client) error {
		lead, err := cli.Leader(ctx)
		if err != nil {
			return err
		}
		nodes, err := cli.Cluster(ctx)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			mark := ""
			if lead != nil && n.ID == lead.ID {
				mark = "\tleader"
			}
			fmt.Printf("%#x\t%s\t%s%s\n", n.ID, n.Address, roleName(n.Role), mark)
		}
		return nil
	})
}

// remove takes a member out of the configuration (a node retired for good: stop it first).
func remove(args []string) error {
	var address *string
	define := func(fs *flag.FlagSet) {
		address = fs.String("address", "", "the dqlite address of the member to remove")
	}
	return onLeader("remove", args, define, func(ctx context.Context, cli *client.Client) error {
		nodes, err := cli.Cluster(ctx)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if n.Address == *address {
				if err := cli.Remove(ctx, n.ID); err != nil {
					return err
				}
				fmt.Printf("removed %#x %s\n", n.ID, n.Address)
				return nil
			}
		}
		return fmt.Errorf("%s is not a member", *address)
	})
}

// backup writes the database as the leader holds it (every acknowledged write) to one SQLite file.
func backup(args []string) error {
	fs := flag.NewFlagSet("backup", flag.ExitOnError)
	cluster := fs.String("cluster", "", "comma-separated dqlite addresses of the store")
	out := fs.String("out", "", "the SQLite file to write (must not exist)")
	fs.Parse(args)
	if *out == "" {
		return errors.New("-out is required")
	}
	if _, err := os.Stat(*out); err == nil {
		return fmt.Errorf("%s exists: choose a new name", *out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cli, err := leader(ctx, *cluster)
	if err != nil {
		return fmt.Errorf("no leader: %v", err)
	}
	defer cli.Close()
	files, err := cli.Dump(ctx, databaseName)
	if err != nil {
		return err
	}
	for _, f := range files {
		name := *out
		if strings.HasSuffix(f.Name, "-wal") {
			name = *out + "-wal"
		} else if f.Name != databaseName {
			continue
		}
		if err := os.WriteFile(name, f.Data, 0o600); err != nil {
			return err
		}
	}
	cpath := C.CString(*out)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	if rc := C.scribe_checkpoint(cpath, &cerr); rc != C.SQLITE_OK {
		msg := "checkpoint failed"
		if cerr != nil {
			msg = C.GoString(cerr)
			C.sqlite3_free(unsafe.Pointer(cerr))
		}
		return fmt.Errorf("%s: %s", *out, msg)
	}
	fmt.Printf("wrote %s\n", *out)
	return nil
}

// recoverQuorum rewrites a stopped node's Raft configuration to the members kept, when a
// majority of voters is gone for good. Run it on every kept node (stopped), with the same -keep.
func recoverQuorum(args []string) error {
	fs := flag.NewFlagSet("recover", flag.ExitOnError)
	dir := fs.String("dir", "", "the stopped node's data directory")
	keep := fs.String("keep", "", "comma-separated dqlite addresses of the members that remain (voters)")
	fs.Parse(args)
	if *dir == "" || *keep == "" {
		return errors.New("-dir and -keep are required")
	}
	ctx := context.Background()
	store, err := client.NewYamlNodeStore(filepath.Join(*dir, "cluster.yaml"))
	if err != nil {
		return err
	}
	known, err := store.Get(ctx)
	if err != nil {
		return err
	}
	var kept []dqlite.NodeInfo
	for _, a := range strings.Split(*keep, ",") {
		a = strings.TrimSpace(a)
		found := false
		for _, n := range known {
			if n.Address == a {
				kept = append(kept, dqlite.NodeInfo{ID: n.ID, Address: n.Address, Role: client.Voter})
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s is not in %s", a, filepath.Join(*dir, "cluster.yaml"))
		}
	}
	if err := dqlite.ReconfigureMembershipExt(*dir, kept); err != nil {
		return fmt.Errorf("cannot rewrite the configuration: %v", err)
	}
	if err := store.Set(ctx, kept); err != nil {
		return err
	}
	fmt.Printf("configuration of %s: %d voter(s)\n", *dir, len(kept))
	return nil
}
