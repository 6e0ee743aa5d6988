// fake_upstream.h — starts tests/rxnav/fake_upstream.py for a test and stops it afterwards.
//
//   FakeUpstream server;                       // "port N" read within 20 s, or the test fails
//   config.rxnav_base = server.rxnav_url();    // http://127.0.0.1:N/REST
//   server.SetMode("500", "ok");               // every RxNav request answers 500
//   server.Stats()["rxnav"]                    // RxNav requests received so far
//
// The process is killed by its pid (SIGKILL) in the destructor and reaped; it also stops by
// itself after `lifetime_s`, so a crashed test never leaves it behind for long.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "http_client.h"

extern char** environ;

namespace scribe::testing {

struct FakeUpstreamOptions {
  bool silent = false;        // accept connections, never answer
  std::string mode;           // "rxnav=500,openfda=ok"
  double lifetime_s = 90;
  double slow_s = 30;         // how long "slow" answers sleep
  std::string tls_cert, tls_key;
};

class FakeUpstream {
 public:
  explicit FakeUpstream(FakeUpstreamOptions o = {}) {
    std::vector<std::string> args = {"python3", FAKE_UPSTREAM_SCRIPT, "--lifetime", std::to_string(o.lifetime_s),
                                     "--slow-seconds", std::to_string(o.slow_s)};
    if (o.silent) args.push_back("--silent");
    if (!o.mode.empty()) args.insert(args.end(), {"--mode", o.mode});
    if (!o.tls_cert.empty()) args.insert(args.end(), {"--tls-cert", o.tls_cert, "--tls-key", o.tls_key});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    int rc = posix_spawnp(&pid_, "python3", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
      close(fds[0]);
      throw std::runtime_error("cannot start python3 fake_upstream.py");
    }
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[64];
      ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    if (line.rfind("port ", 0) != 0) {
      Stop();
      throw std::runtime_error("fake_upstream.py did not report its port: \"" + line + "\"");
    }
    port_ = std::stoi(line.substr(5));
  }
  ~FakeUpstream() { Stop(); }
  FakeUpstream(const FakeUpstream&) = delete;
  FakeUpstream& operator=(const FakeUpstream&) = delete;

  void Stop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

  int port() const { return port_; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string rxnav_url() const { return base() + "/REST"; }
  std::string openfda_url() const { return base(); }

  nlohmann::json Get(const std::string& path) {
    HttpClient client({.connect_timeout_ms = 2000, .total_timeout_ms = 5000});
    HttpResult r = client.Get(base() + path);
    if (!r.transport_ok || r.http_status != 200) throw std::runtime_error("fake upstream: " + path + ": " + r.error);
    return nlohmann::json::parse(r.body);
  }
  nlohmann::json Stats() { return Get("/_stats"); }
  void SetMode(const std::string& rxnav, const std::string& openfda) {
    Get("/_mode?rxnav=" + rxnav + "&openfda=" + openfda);
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// A loopback port nobody listens on (connections to it are refused).
inline int RefusedPort() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

}  // namespace scribe::testing
