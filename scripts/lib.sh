# scripts/lib.sh — shared set-up for scripts/serve, scripts/test and the benchmarks. Source it:
#
#   source "$(dirname "$0")/lib.sh"
#   scribe_install_packages        # as root: apt-get install what is missing (else just check)
#   scribe_build build             # cmake configure + build everything into ./build
#   scribe_build build scribe scribe-fcgi   # only these targets
#   scribe_render_nginx RUN_DIR    # nginx.conf from nginx/nginx.conf.template
#
# Functions print what they do on stderr and return non-zero on failure; nothing here exits
# the caller's shell on its own.

SCRIBE_REPO=${SCRIBE_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

# Debian 12 packages the build, the server and the test suites need. build-essential brings make,
# gcc and libc6-dev, which CMake needs for the project's C and ASM languages (--no-install-recommends
# would not pull them in with cmake and g++ alone).
SCRIBE_PACKAGES=(build-essential cmake g++ pkg-config libsqlite3-dev sqlite3 libyaml-cpp-dev nlohmann-json3-dev
  libfcgi-dev libcurl4-openssl-dev libssl-dev libutf8proc-dev libvalijson-dev nginx-light libgtest-dev libbenchmark-dev
  python3 python3-yaml curl jq)

# Debian 12 packages scripts/render_audio needs to render the encounter recordings (flite speaks,
# sox trims, levels and joins, opus-tools encodes and opusinfo reads): an authoring step, so
# scripts/serve does not install them; scripts/test does, for the audio/determinism test.
SCRIBE_AUDIO_PACKAGES=(flite sox opus-tools)

# Debian 12 packages the replicated store needs (cluster/store, docs/scale-out.md): Go, the
# dqlite library and its Go client. Only scripts/test-cluster installs them; the single-machine
# server does not use them.
SCRIBE_CLUSTER_PACKAGES=(golang-go golang-github-canonical-go-dqlite-dev libdqlite-dev)

scribe_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# The packages of "$@" (default SCRIBE_PACKAGES) that are not installed.
scribe_missing_packages() {
  local p status
  for p in "${@:-${SCRIBE_PACKAGES[@]}}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || status=
    [[ $status == "install ok installed" ]] || printf '%s\n' "$p"
  done
}

# Installs missing packages ("$@" adds to SCRIBE_PACKAGES). apt-get update runs only when
# something is missing. Without root, reports what is missing and fails if anything is.
scribe_install_packages() {
  local missing
  mapfile -t missing < <(scribe_missing_packages "${SCRIBE_PACKAGES[@]}" "$@")
  ((${#missing[@]} == 0)) && return 0
  if ((EUID != 0)); then
    scribe_log "missing Debian packages (run as root to install): ${missing[*]}"
    return 1
  fi
  scribe_log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Configures and builds into $1 (default build/, relative to the repo): the targets named after
# it, or everything. On failure, shows the end of the build output.
#
# With profile-guided optimization (GCC; SCRIBE_PGO=0 builds without): $1/pgo/train is built
# instrumented, only as far as tests/bench/grade_profile, which grades every fixture note three
# times (a few seconds; again only when that program was rebuilt) and writes $1/pgo/profile;
# then $1 is built optimized with that profile (CMakeLists.txt, SCRIBE_PGO). Grading takes 9–12 %
# fewer instructions so (README, "Benchmarks"); the first build takes about three minutes
# longer.
scribe_build() {
  local dir=${1:-build}
  [[ $dir == /* ]] || dir=$SCRIBE_REPO/$dir
  local targets=()
  (($# > 1)) && targets=(--target "${@:2}")
  scribe_log "building ${*:2}${2:+ }into $dir"
  local log status=0 pgo=()
  log=$(mktemp) || return 1
  if [[ ${SCRIBE_PGO:-1} != 0 ]]; then
    local train=$dir/pgo/train profile=$dir/pgo/profile
    pgo=(-DSCRIBE_PGO=use "-DSCRIBE_PGO_DIR=$profile")
    { cmake -S "$SCRIBE_REPO" -B "$train" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCRIBE_PGO=generate \
        "-DSCRIBE_PGO_DIR=$profile" &&
      cmake --build "$train" -j "$(nproc)" --target grade_profile &&
      { [[ $profile/trained -nt $train/tests/bench/grade_profile ]] ||  # else trained by this binary
        { rm -rf "$profile" &&
          (cd "$SCRIBE_REPO" && "$train/tests/bench/grade_profile" 3) && mkdir -p "$profile" &&
          touch "$profile/trained"; }; }
    } >"$log" 2>&1 || status=$?
  else
    pgo=(-DSCRIBE_PGO= -DSCRIBE_PGO_DIR=)
  fi
  if ((status == 0)); then
    { cmake -S "$SCRIBE_REPO" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${pgo[@]}" &&
      cmake --build "$dir" -j "$(nproc)" "${targets[@]}"; } >>"$log" 2>&1 || status=$?
  fi
  if ((status != 0)); then
    tail -n 60 "$log" >&2
    scribe_log "build failed (status $status)"
  fi
  rm -f "$log"
  return "$status"
}

# Builds the store node, $1/cluster/scribe-store (default build/), from cluster/store with the
# Go toolchain and the go-dqlite client Debian packages: GOPATH mode over /usr/share/gocode, so
# nothing is fetched. dqlite's cgo flags ask for -Wl,-z,now, which Go allows only when told.
scribe_build_store() {
  local dir=${1:-build}
  [[ $dir == /* ]] || dir=$SCRIBE_REPO/$dir
  scribe_log "building the store node into $dir/cluster"
  mkdir -p "$dir/cluster" &&
    (cd "$SCRIBE_REPO" && GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOCACHE="$dir/cluster/go-cache" \
      CGO_LDFLAGS_ALLOW='-Wl,-z,now' go build -o "$dir/cluster/scribe-store" ./cluster/store)
}

# Ends every process of process group $1 (TERM, then KILL after 2 s). No-op when it is empty.
scribe_end_group() {
  local group=$1 _
  [[ $group =~ ^[0-9]+$ ]] || return 0
  kill -TERM -- "-$group" 2>/dev/null || return 0
  for _ in $(seq 20); do
    kill -0 -- "-$group" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$group" 2>/dev/null
  return 0
}

# The names (comm) of the live processes of process group $1, one per line.
scribe_group_names() {
  local f line rest state ppid pgrp comm
  for f in /proc/[0-9]*/stat; do
    { read -r line <"$f"; } 2>/dev/null || continue
    rest=${line##*) }
    read -r state ppid pgrp _ <<<"$rest"
    [[ $pgrp == "$1" && $state != Z ]] || continue
    comm=${line#*(}
    printf '%s\n' "${comm%)*}"
  done
}

# Ends the nginx process group a killed earlier run left in run directory $1 (nginx.pgid), if
# that group still holds nginx processes.
scribe_end_stale_groups() {
  local file=$1/nginx.pgid group
  [[ -f $file ]] || return 0
  group=$(<"$file")
  if [[ $group =~ ^[0-9]+$ ]] && scribe_group_names "$group" | grep -qx nginx; then
    scribe_log "ending nginx processes left by an earlier run (process group $group)"
    scribe_end_group "$group"
  fi
  rm -f "$file"
}

# Writes $1/nginx.conf from the template, with $1 as the run directory (pid, logs, temp files)
# and $1/htdocs/scribe-trials linked to web/. Reads HOST, PORT, FCGI_SOCKET, FCGI_READ_SOCKET
# (default: FCGI_SOCKET) or, in cluster mode, FCGI_SUBMIT_SERVERS and FCGI_READ_SERVERS (upstream
# "server HOST:PORT …;" lines; default one Unix socket each), FCGI_READ_TIMEOUT (seconds, default 60), SUBMIT_RATE (default 10r/s),
# SUBMIT_BURST (default 20), SUBMIT_CONCURRENCY (default 2) and AUDIO_DIR (the recordings,
# default corpus/audio) from the environment.
scribe_render_nginx() {
  local RUN_DIR=$1 HTDOCS=$1/htdocs NGINX_CONF_DIR=${NGINX_CONF_DIR:-/etc/nginx} NGINX_USER=
  local AUDIO_DIR=${AUDIO_DIR:-$SCRIBE_REPO/corpus/audio}
  local SUBMIT_RATE=${SUBMIT_RATE:-10r/s} SUBMIT_BURST=${SUBMIT_BURST:-20} SUBMIT_CONCURRENCY=${SUBMIT_CONCURRENCY:-2}
  local FCGI_READ_SOCKET=${FCGI_READ_SOCKET:-$FCGI_SOCKET} FCGI_READ_TIMEOUT=${FCGI_READ_TIMEOUT:-60}
  local FCGI_SUBMIT_SERVERS=${FCGI_SUBMIT_SERVERS:-"server unix:$FCGI_SOCKET;"}
  local FCGI_READ_SERVERS=${FCGI_READ_SERVERS:-"server unix:$FCGI_READ_SOCKET;"}
  mkdir -p "$RUN_DIR/tmp" "$HTDOCS" || return 1
  ln -sfn "$SCRIBE_REPO/web" "$HTDOCS/scribe-trials" || return 1
  # As root, nginx would hand its workers to "nobody"; keep them as the invoking user.
  ((EUID == 0)) && NGINX_USER="user $(id -un) $(id -gn);"
  local conf var
  conf=$(<"$SCRIBE_REPO/nginx/nginx.conf.template") || return 1
  for var in HOST PORT RUN_DIR HTDOCS AUDIO_DIR FCGI_SUBMIT_SERVERS FCGI_READ_SERVERS FCGI_READ_TIMEOUT SUBMIT_RATE SUBMIT_BURST \
    SUBMIT_CONCURRENCY NGINX_USER NGINX_CONF_DIR; do
    conf=${conf//"\${$var}"/${!var}}
  done
  printf '%s\n' "$conf" >"$RUN_DIR/nginx.conf"
}
