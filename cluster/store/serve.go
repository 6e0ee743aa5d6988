package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/canonical/go-dqlite/app"
	"github.com/canonical/go-dqlite/client"
)

// The database every store node holds; one name, so every node's API reaches the same data.
const databaseName = "scribe"

type server struct {
	app     *app.App
	db      *sql.DB
	allow   []*net.IPNet
	timeout time.Duration
	maxBody int64
	logger  *log.Logger
	txTurn  sync.Mutex // this node's multi-statement transactions, one at a time (api.go, exec)
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	dir := fs.String("dir", "", "this node's data directory (created if missing)")
	raftAddr := fs.String("raft", "", "address dqlite listens on for its peers and clients (first start only; kept in -dir)")
	join := fs.String("join", "", "comma-separated addresses of running nodes to join (first start only; empty bootstraps a new cluster)")
	httpAddr := fs.String("http", "", "address of the HTTP API (cluster-internal: graders and operators)")
	extension := fs.String("extension", "build/scribe.so", "the scribe SQLite extension, for its pure functions")
	voters := fs.Int("voters", 3, "voters the cluster keeps (odd, at least 3); the leader promotes spares to reach it")
	rolesEvery := fs.Duration("roles-every", 2*time.Second, "how often the leader checks the roles (promotes a spare when a voter is gone)")
	latency := fs.Duration("latency", 0, "typical round trip between nodes; scales Raft's heartbeat and election timeouts (0: dqlite's default)")
	allow := fs.String("allow", "127.0.0.0/8", "comma-separated networks the HTTP API answers; anyone else gets 403")
	timeout := fs.Duration("timeout", 5*time.Second, "limit on one request's work, finding the leader included")
	maxBody := fs.Int64("max-body", 16<<20, "largest request body in bytes")
	fs.Parse(args)
	if *dir == "" || *httpAddr == "" {
		return errors.New("-dir and -http are required")
	}
	s := &server{timeout: *timeout, maxBody: *maxBody, logger: log.New(os.Stderr, "scribe-store: ", log.LstdFlags|log.Lmicroseconds)}
	for _, cidr := range strings.Split(*allow, ",") {
		_, n, err := net.ParseCIDR(strings.TrimSpace(cidr))
		if err != nil {
			return fmt.Errorf("-allow: %v", err)
		}
		s.allow = append(s.allow, n)
	}
	if err := registerFunctions(*extension); err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	options := []app.Option{
		app.WithVoters(*voters),
		app.WithStandBys(0),
		app.WithRolesAdjustmentFrequency(*rolesEvery),
		app.WithLogFunc(func(l client.LogLevel, format string, a ...interface{}) {
			if l >= client.LogWarn {
				s.logger.Printf("dqlite %s: %s", l, fmt.Sprintf(format, a...))
			}
		}),
	}
	if *raftAddr != "" {
		options = append(options, app.WithAddress(*raftAddr))
	}
	if *join != "" {
		options = append(options, app.WithCluster(strings.Split(*join, ",")))
	}
	if *latency > 0 {
		options = append(options, app.WithNetworkLatency(*latency))
	}
	node, err := app.New(*dir, options...)
	if err != nil {
		return fmt.Errorf("cannot start the dqlite node: %v", err)
	}
	s.app = node
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := node.Ready(ctx); err != nil {
		node.Close()
		return fmt.Errorf("the node did not join its cluster: %v", err)
	}
	if s.db, err = node.Open(ctx, databaseName); err != nil {
		node.Close()
		return fmt.Errorf("cannot open the database: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/exec", s.guard(http.MethodPost, s.exec))
	mux.HandleFunc("/v1/query", s.guard(http.MethodPost, s.query))
	mux.HandleFunc("/v1/status", s.guard(http.MethodGet, s.status))
	httpServer := &http.Server{Addr: *httpAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second}
	listener, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		s.db.Close()
		node.Close()
		return err
	}
	s.logger.Printf("node %#x ready: raft %s, http %s", node.ID(), node.Address(), *httpAddr)
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(listener) }()
	select {
	case err = <-served:
	case <-ctx.Done():
		s.logger.Printf("stopping: handing over this node's role")
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	httpServer.Shutdown(shutdown)
	s.db.Close()
	node.Handover(shutdown)
	node.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// apiError is every error body: a message a person can act on and a code a program branches on.
type apiError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

func writeJSON(w http.ResponseWriter, status int, v interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, code, format string, a ...interface{}) {
	writeJSON(w, status, apiError{Error: fmt.Sprintf(format, a...), Code: code})
}

// guard answers only the allowed networks and one method.
func (s *server) guard(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		ip := net.ParseIP(host)
		allowed := false
		for _, n := range s.allow {
			allowed = allowed || (err == nil && ip != nil && n.Contains(ip))
		}
		if !allowed {
			fail(w, http.StatusForbidden, "forbidden", "%s is not on this store's allow-list", host)
			return
		}
		if r.Method != method {
			w.Header().Set("Allow", method)
			fail(w, http.StatusMethodNotAllowed, "method", "%s %s: use %s", r.Method, r.URL.Path, method)
			return
		}
		if method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
		}
		h(w, r)
	}
}

// decode reads a JSON body strictly: unknown fields and trailing data are errors.
func (s *server) decode(w http.ResponseWriter, r *http.Request, v interface{}) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("data after the JSON value")
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, http.StatusRequestEntityTooLarge, "too_large", "request body over %d bytes", s.maxBody)
		} else {
			fail(w, http.StatusBadRequest, "json", "malformed JSON: %v", err)
		}
		return false
	}
	return true
}
