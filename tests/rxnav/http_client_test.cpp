// http_client_test.cpp — HttpClient against the fake upstream: answers, statuses, timeouts,
// refusals, the body cap, connection reuse and TLS. Every case is bounded by short timeouts.
#include "http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "fake_upstream.h"

namespace scribe {
namespace {

using testing::FakeUpstream;

HttpOptions Quick() { return {.connect_timeout_ms = 300, .total_timeout_ms = 700, .max_body_bytes = 1 << 20}; }

TEST(HttpClient, AnswersAndReusesTheConnection) {
  FakeUpstream server;
  HttpClient client(Quick());
  for (int i = 0; i < 3; ++i) {
    HttpResult r = client.Get(server.rxnav_url() + "/version.json");
    ASSERT_TRUE(r.transport_ok) << r.error;
    EXPECT_EQ(r.http_status, 200);
    EXPECT_EQ(nlohmann::json::parse(r.body)["version"], "03-Dec-2018");
    EXPECT_EQ(r.failure, HttpFailure::kNone);
    EXPECT_TRUE(r.error.empty());
  }
  EXPECT_EQ(server.Stats()["connections"].get<int>() - 1, 1) << "three requests, one connection (plus the stats one)";
}

TEST(HttpClient, HttpErrorsAreAnswersNotTransportFailures) {
  FakeUpstream server;
  HttpClient client(Quick());
  HttpResult r = client.Get(server.rxnav_url() + "/approximateTerm.json?term=servererror");
  EXPECT_TRUE(r.transport_ok);
  EXPECT_EQ(r.http_status, 500);
  r = client.Get(server.rxnav_url() + "/approximateTerm.json?term=ratelimited");
  EXPECT_TRUE(r.transport_ok);
  EXPECT_EQ(r.http_status, 403);
  r = client.Get(server.openfda_url() + "/drug/ndc.json?search=generic_name:%22nosuchdrug%22");
  EXPECT_TRUE(r.transport_ok);
  EXPECT_EQ(r.http_status, 404);
}

TEST(HttpClient, RefusedConnection) {
  HttpClient client(Quick());
  auto start = std::chrono::steady_clock::now();
  HttpResult r = client.Get("http://127.0.0.1:" + std::to_string(testing::RefusedPort()) + "/REST/version.json");
  EXPECT_FALSE(r.transport_ok);
  EXPECT_EQ(r.http_status, 0);
  EXPECT_EQ(r.failure, HttpFailure::kRefused);
  EXPECT_EQ(r.error, "connection refused");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
}

TEST(HttpClient, SilentUpstreamTimesOutWithinTheBudget) {
  FakeUpstream silent({.silent = true});
  HttpClient client(Quick());
  auto start = std::chrono::steady_clock::now();
  HttpResult r = client.Get(silent.rxnav_url() + "/version.json");
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(r.transport_ok);
  EXPECT_EQ(r.failure, HttpFailure::kTimeout);
  EXPECT_EQ(r.error, "timeout after 0.7 s");
  EXPECT_GE(elapsed, std::chrono::milliseconds(650));
  EXPECT_LT(elapsed, std::chrono::milliseconds(2500));
}

TEST(HttpClient, SlowAnswerTimesOut) {
  FakeUpstream server;
  HttpClient client(Quick());
  auto start = std::chrono::steady_clock::now();
  HttpResult r = client.Get(server.rxnav_url() + "/approximateTerm.json?term=slowdrug");
  EXPECT_FALSE(r.transport_ok);
  EXPECT_TRUE(r.timed_out());
  EXPECT_EQ(r.error, "timeout after 0.7 s");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2500));
  // the handle stays usable after a timeout
  r = client.Get(server.rxnav_url() + "/version.json");
  EXPECT_TRUE(r.transport_ok);
  EXPECT_EQ(r.http_status, 200);
}

// A slow answer on a reused keep-alive connection (curl reports no connect time for it) is a
// timeout of the whole request, not of a connect that never happened.
TEST(HttpClient, SlowAnswerOnAReusedConnectionIsNotAConnectTimeout) {
  FakeUpstream server;
  HttpClient client(Quick());
  ASSERT_TRUE(client.Get(server.rxnav_url() + "/version.json").transport_ok);
  HttpResult r = client.Get(server.rxnav_url() + "/approximateTerm.json?term=slowdrug");
  EXPECT_FALSE(r.transport_ok);
  EXPECT_EQ(r.failure, HttpFailure::kTimeout);
  EXPECT_EQ(r.error, "timeout after 0.7 s");
}

TEST(HttpClient, BodyOverTheCapFailsWithAndWithoutContentLength) {
  FakeUpstream server;
  HttpClient client(Quick());
  for (const char* term : {"hugedrug", "hugechunked"}) {
    HttpResult r = client.Get(server.rxnav_url() + "/approximateTerm.json?term=" + term);
    EXPECT_FALSE(r.transport_ok) << term;
    EXPECT_EQ(r.failure, HttpFailure::kTooLarge) << term;
    EXPECT_EQ(r.error, "answer over 1 MiB") << term;
    EXPECT_TRUE(r.body.empty());
  }
}

TEST(HttpClient, OnlyHttpAndHttps) {
  HttpClient client(Quick());
  HttpResult r = client.Get("file:///etc/passwd");
  EXPECT_FALSE(r.transport_ok);
  EXPECT_EQ(r.failure, HttpFailure::kOther);
  EXPECT_TRUE(r.body.empty());
}

TEST(HttpClient, HttpsWithAVerifiedCertificate) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scribe-tls-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string cert = (dir / "cert.pem").string(), key = (dir / "key.pem").string();
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout " +
                    key + " -out " + cert + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    fs::remove_all(dir);
    GTEST_SKIP() << "openssl command not available";
  }
  {
    FakeUpstream server({.tls_cert = cert, .tls_key = key});
    std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/REST/version.json";
    HttpOptions trusting = Quick();
    trusting.ca_file = cert;
    HttpResult r = HttpClient(trusting).Get(url);
    EXPECT_TRUE(r.transport_ok) << r.error;
    EXPECT_EQ(r.http_status, 200);
    r = HttpClient(Quick()).Get(url);  // the system store does not know this certificate
    EXPECT_FALSE(r.transport_ok);
    EXPECT_EQ(r.failure, HttpFailure::kTls) << r.error;
  }
  fs::remove_all(dir);
}

TEST(HttpClient, Formatting) {
  EXPECT_EQ(UrlEncode("generic_name:\"a b\"/é"), "generic_name%3A%22a%20b%22%2F%C3%A9");
  EXPECT_EQ(FormatSeconds(2000), "2 s");
  EXPECT_EQ(FormatSeconds(300), "0.3 s");
  EXPECT_EQ(FormatBytes(1 << 20), "1 MiB");
  EXPECT_EQ(FormatBytes(64 * 1024), "64 KiB");
  EXPECT_EQ(FormatBytes(1000), "1000 bytes");
}

}  // namespace
}  // namespace scribe
