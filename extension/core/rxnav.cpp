// rxnav.cpp — the live validator, its breakers, limiters and configuration (see rxnav.h).
#include "rxnav.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "embedded.h"
#include "text.h"

namespace scribe {

using nlohmann::json;

int64_t SystemClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// --- Circuit breaker ---------------------------------------------------------------------

bool CircuitBreaker::Allow(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_) return true;
  if (now_ms < open_until_ || probing_) return false;
  probing_ = true;  // half-open: this request is the probe
  return true;
}

void CircuitBreaker::RecordSuccess() {
  std::lock_guard<std::mutex> lock(mu_);
  failures_ = timeouts_ = 0;
  open_ = probing_ = false;
}

void CircuitBreaker::RecordFailure(int64_t now_ms, bool timeout, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  ++failures_;
  timeouts_ = timeout ? timeouts_ + 1 : 0;
  last_failure_ = what;
  if (open_) {  // the probe failed: cool down again
    probing_ = false;
    open_until_ = now_ms + options_.cooldown_ms;
    opened_after_ = failures_;
    return;
  }
  if (failures_ >= options_.failure_threshold || (timeout && timeouts_ >= options_.timeout_threshold)) {
    open_ = true;
    open_until_ = now_ms + options_.cooldown_ms;
    opened_after_ = failures_;
  }
}

bool CircuitBreaker::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

std::string CircuitBreaker::Describe() const {
  std::lock_guard<std::mutex> lock(mu_);
  return "circuit open after " + std::to_string(opened_after_) + (opened_after_ == 1 ? " failure" : " failures") +
         " (last: " + last_failure_ + ")";
}

// --- Rate limiter ------------------------------------------------------------------------

namespace {

int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void SleepMicros(int64_t us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

}  // namespace

RateLimiter::RateLimiter(double per_second, double burst, Micros now, Sleep sleep, std::string shared_state_file)
    : rate_(per_second),
      burst_(std::max(1.0, burst)),
      tokens_(std::max(1.0, burst)),
      now_(now ? std::move(now) : Micros(SteadyMicros)),
      sleep_(sleep ? std::move(sleep) : Sleep(SleepMicros)),
      file_(std::move(shared_state_file)) {
  last_ = now_();
}

std::optional<int64_t> RateLimiter::Take(double& tokens, int64_t& last, int64_t t, int64_t max_wait) const {
  double have = tokens;
  int64_t at = last;
  if (t > at) {  // refill up to now
    have = std::min(burst_, have + static_cast<double>(t - at) * rate_ / 1e6);
    at = t;
  }
  int64_t slot = at;  // when this request may start
  if (have >= 1) {
    have -= 1;
  } else {
    slot = at + static_cast<int64_t>(std::ceil((1 - have) / rate_ * 1e6));
    have = 0;
    at = slot;  // the bucket is empty at the reserved slot
  }
  int64_t wait = std::max<int64_t>(0, slot - t);
  if (wait > max_wait) return std::nullopt;
  tokens = have;
  last = at;
  return wait;
}

namespace {

// The shared bucket as stored in its file.
struct SharedBucket {
  char magic[8];
  double tokens;
  int64_t last_us;
};
constexpr char kBucketMagic[8] = {'s', 'c', 'r', 'b', 'r', 'a', 't', '1'};

// Opens the state file for reading and writing without following a symbolic link, and only
// when it is a regular file of ours with one name. Returns the fd, or -1 with `problem` set.
int OpenStateFile(const std::string& path, std::string& problem) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
  if (fd < 0) {
    problem = path + (errno == ELOOP ? " is a symbolic link" : ": " + std::string(std::strerror(errno)));
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    problem = path + ": " + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    problem = path + " is not a regular file";
  } else if (st.st_uid != geteuid()) {
    problem = path + " belongs to another user";
  } else if (st.st_nlink != 1) {
    problem = path + " has " + std::to_string(st.st_nlink) + " links";
  } else {
    return fd;
  }
  close(fd);
  return -1;
}

}  // namespace

std::optional<int64_t> RateLimiter::TryAcquire(int64_t max_wait_us) {
  if (rate_ <= 0) return 0;
  max_wait_us = std::clamp<int64_t>(max_wait_us, 0, kMaxAheadMicros);
  std::optional<int64_t> wait;
  {
    std::lock_guard<std::mutex> lock(mu_);
    bool shared = false;
    problem_.clear();
    if (!file_.empty()) {
      if (int fd = OpenStateFile(file_, problem_); fd >= 0) {
        if (flock(fd, LOCK_EX) == 0) {
          int64_t t = now_();
          SharedBucket state{};
          bool usable = pread(fd, &state, sizeof state, 0) == static_cast<ssize_t>(sizeof state) &&
                        std::memcmp(state.magic, kBucketMagic, sizeof kBucketMagic) == 0 &&
                        std::isfinite(state.tokens) && state.tokens >= 0 && state.tokens <= burst_ &&
                        state.last_us >= 0 && state.last_us <= t + kMaxAheadMicros;
          if (!usable) {  // new, damaged, foreign, or from before a reboot: start full
            std::memcpy(state.magic, kBucketMagic, sizeof kBucketMagic);
            state.tokens = burst_;
            state.last_us = t;
          }
          wait = Take(state.tokens, state.last_us, t, max_wait_us);
          shared = !wait || pwrite(fd, &state, sizeof state, 0) == static_cast<ssize_t>(sizeof state);
          if (!shared) problem_ = file_ + ": " + std::strerror(errno);
          flock(fd, LOCK_UN);
        } else {
          problem_ = file_ + ": flock: " + std::strerror(errno);
        }
        close(fd);
      }
    }
    if (!shared) wait = Take(tokens_, last_, now_(), max_wait_us);
  }
  if (wait && *wait > 0) sleep_(*wait);
  return wait;
}

int64_t RateLimiter::Acquire() { return TryAcquire(kMaxAheadMicros).value_or(0); }

std::string RateLimiter::shared_problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  return problem_;
}

namespace {

std::mutex& GuardsMutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::shared_ptr<UpstreamGuard>>& Guards() {
  static auto* guards = new std::map<std::string, std::shared_ptr<UpstreamGuard>>();  // never destroyed
  return *guards;
}

}  // namespace

std::shared_ptr<UpstreamGuard> SharedUpstreamGuard(const std::string& base_url, CircuitBreaker::Options breaker_options,
                                                   double rate, double burst, const std::string& rate_state_dir) {
  std::lock_guard<std::mutex> lock(GuardsMutex());
  auto& g = Guards()[base_url];
  if (!g) {
    std::string file;
    if (!rate_state_dir.empty()) {
      uint64_t h = 1469598103934665603ULL;  // FNV-1a of the base URL
      for (unsigned char c : base_url) h = (h ^ c) * 1099511628211ULL;
      char name[48];
      std::snprintf(name, sizeof name, "scribe-rate-%016llx", static_cast<unsigned long long>(h));
      file = rate_state_dir + "/" + name;
    }
    g = std::make_shared<UpstreamGuard>(breaker_options, rate, burst, file);
  }
  return g;
}

void ResetSharedUpstreamGuards() {
  std::lock_guard<std::mutex> lock(GuardsMutex());
  Guards().clear();
}

// --- Configuration -----------------------------------------------------------------------

namespace {

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int64_t EnvInt(const char* name, int64_t fallback, int64_t min_value, int64_t max_value) {
  const char* v = Env(name);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v, &end, 10);
  if (errno || end == v || *end || n < min_value)
    throw std::invalid_argument(std::string(name) + ": expected an integer >= " + std::to_string(min_value) +
                                ", got \"" + v + "\"");
  return std::min<int64_t>(n, max_value);
}

double EnvRate(const char* name, double fallback, double max_value) {
  const char* v = Env(name);
  if (!v) return fallback;
  char* end = nullptr;
  double d = std::strtod(v, &end);
  if (end == v || *end || !(d > 0))
    throw std::invalid_argument(std::string(name) + ": expected a positive number, got \"" + v + "\"");
  return std::min(d, max_value);
}

std::string EnvUrl(const char* name, const std::string& fallback, bool allow_off) {
  const char* v = Env(name);
  if (!v) return fallback;
  std::string url = v;
  if (allow_off && url == "off") return "";
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    throw std::invalid_argument(std::string(name) + ": expected an http:// or https:// URL, got \"" + url + "\"");
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

LiveConfig LiveConfigFromEnv() {
  LiveConfig c;
  if (const char* v = Env("SCRIBE_OFFLINE")) {
    std::string s = Lower(v);
    c.offline = s == "1" || s == "true" || s == "yes" || s == "on";
  }
  c.rxnav_base = EnvUrl("SCRIBE_RXNAV_URL", c.rxnav_base, false);
  c.openfda_base = EnvUrl("SCRIBE_OPENFDA_URL", c.openfda_base, true);
  c.http.connect_timeout_ms = EnvInt("SCRIBE_HTTP_CONNECT_TIMEOUT_MS", c.http.connect_timeout_ms, 1, 2000);
  c.http.total_timeout_ms = EnvInt("SCRIBE_HTTP_TIMEOUT_MS", c.http.total_timeout_ms, 1, 5000);
  c.http.connect_timeout_ms = std::min(c.http.connect_timeout_ms, c.http.total_timeout_ms);
  c.http.max_body_bytes = static_cast<size_t>(EnvInt("SCRIBE_HTTP_MAX_BYTES", static_cast<int64_t>(c.http.max_body_bytes), 1024, 16 << 20));
  if (const char* v = Env("SCRIBE_CA_BUNDLE")) c.http.ca_file = v;
  c.ttl_ok_s = EnvInt("SCRIBE_CACHE_TTL_S", c.ttl_ok_s, 0, INT64_MAX / 2000);
  c.ttl_negative_s = EnvInt("SCRIBE_CACHE_NEGATIVE_TTL_S", c.ttl_negative_s, 0, INT64_MAX / 2000);
  c.ttl_error_s = EnvInt("SCRIBE_CACHE_ERROR_TTL_S", c.ttl_error_s, 0, INT64_MAX / 2000);
  c.breaker.failure_threshold = static_cast<int>(EnvInt("SCRIBE_BREAKER_FAILURES", c.breaker.failure_threshold, 1, 1000));
  c.breaker.timeout_threshold = static_cast<int>(EnvInt("SCRIBE_BREAKER_TIMEOUTS", c.breaker.timeout_threshold, 1, 1000));
  c.breaker.cooldown_ms = EnvInt("SCRIBE_BREAKER_COOLDOWN_S", c.breaker.cooldown_ms / 1000, 0, 86'400) * 1000;
  c.rxnav_rate = EnvRate("SCRIBE_RXNAV_RATE", c.rxnav_rate, 20);
  if (const char* v = Env("SCRIBE_RATE_DIR")) c.rate_state_dir = std::string(v) == "off" ? "" : v;
  c.openfda_rate = EnvRate("SCRIBE_OPENFDA_RATE", c.openfda_rate, 1000);
  c.note_budget_ms = EnvInt("SCRIBE_LIVE_BUDGET_MS", c.note_budget_ms, 1, 30'000);
  c.note_budget_requests = static_cast<int>(EnvInt("SCRIBE_LIVE_BUDGET_REQUESTS", c.note_budget_requests, 0, 1000));
  return c;
}

// --- approximateTerm and names -----------------------------------------------------------

namespace {

const json* Member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string Str(const json& j, const char* key) {
  const json* m = Member(j, key);
  if (!m) return {};
  if (m->is_string()) return m->get_ref<const std::string&>();
  if (m->is_number_integer()) return std::to_string(m->get<int64_t>());
  return {};
}

double Num(const json& j, const char* key, double fallback) {
  const json* m = Member(j, key);
  if (!m) return fallback;
  if (m->is_number()) return m->get<double>();
  if (m->is_string()) {
    const std::string& s = m->get_ref<const std::string&>();
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str()) return d;
  }
  return fallback;
}

}  // namespace

std::optional<std::vector<ApproximateCandidate>> ParseApproximateTerm(const json& answer) {
  const json* group = Member(answer, "approximateGroup");
  if (!group || !group->is_object()) return std::nullopt;
  std::vector<ApproximateCandidate> atoms;
  if (const json* cands = Member(*group, "candidate")) {
    auto add = [&](const json& c) {
      std::string rxcui = Str(c, "rxcui");
      if (rxcui.empty()) return;
      double rank = Num(c, "rank", 1e9);
      atoms.push_back({rxcui, Str(c, "name"), Str(c, "source"), static_cast<int>(std::min(rank, 1e9)), Num(c, "score", 0)});
    };
    if (cands->is_array()) {
      for (const json& c : *cands) add(c);
    } else if (cands->is_object()) {
      add(*cands);  // a single candidate serialised as an object
    } else if (!cands->is_null()) {
      return std::nullopt;
    }
  }
  std::stable_sort(atoms.begin(), atoms.end(), [](const ApproximateCandidate& a, const ApproximateCandidate& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.score > b.score;
  });
  std::vector<ApproximateCandidate> out;
  std::map<std::string, size_t> seen;
  for (ApproximateCandidate& a : atoms) {
    auto [it, inserted] = seen.emplace(a.rxcui, out.size());
    if (inserted) {
      out.push_back(std::move(a));
    } else if (out[it->second].name.empty() && !a.name.empty()) {
      out[it->second].name = a.name;  // the name lives on only some atoms
    }
  }
  return out;
}

namespace {

// The words the offline terminology drops when normalising (salts, formulations, units).
const std::unordered_set<std::string>& NoiseWords() {
  static const std::unordered_set<std::string> words = [] {
    std::unordered_set<std::string> w;
    for (std::string_view line : Split(embedded_file("corpus/rules/name_noise.txt"), '\n')) {
      line = Trim(line);
      if (!line.empty() && line.front() != '#') w.emplace(Lower(line));
    }
    return w;
  }();
  return words;
}

}  // namespace

std::string DrugNameKey(std::string_view name) {
  std::string out;
  for (const std::string& w : PhraseWords(name)) {
    if (NoiseWords().count(w)) continue;
    if (!w.empty() && ((w[0] >= '0' && w[0] <= '9') || w[0] == '.')) continue;
    if (w.size() == 1 && !(w[0] >= 'a' && w[0] <= 'z')) continue;
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out.empty() ? NormalizePhrase(name) : out;
}

namespace {

struct NameCheck {
  bool ok = false;
  MatchKind kind = MatchKind::kExact;
  int distance = 0;
};

NameCheck CheckName(std::string_view term, std::string_view name) {
  if (NormalizePhrase(term) == NormalizePhrase(name)) return {true, MatchKind::kExact, 0};
  std::string a = DrugNameKey(term), b = DrugNameKey(name);
  if (a == b) return {true, MatchKind::kNormalized, 0};
  int max_d = ApproximateMaxDistance(std::min(a.size(), b.size()));
  int d = EditDistance(a, b, max_d);
  if (max_d > 0 && d <= max_d) return {true, MatchKind::kApproximate, d};
  return {};
}

bool NumericLess(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

std::string JoinList(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

// --- The live validator ------------------------------------------------------------------

struct LiveValidator::Upstream {
  std::string name;  // rxnav, openfda
  std::string base;
  std::shared_ptr<UpstreamGuard> guard;
  std::unique_ptr<HttpClient> http;
  int* requests = nullptr;  // the stats counter of this upstream
};

struct LiveValidator::Answer {
  enum class Kind : uint8_t { kOk, kNotFound, kUnavailable } kind = Kind::kUnavailable;
  std::shared_ptr<const json> doc;  // parsed once, shared by every copy
  const json& body() const {
    static const json kNull;
    return doc ? *doc : kNull;
  }
  bool cached = false;
  int64_t fetched_at = 0;
  std::string failure;  // kUnavailable: the whole phrase, "rxnav unreachable (connection refused)"
};

// Answers already read, by cache key, until their row expires: a warm grade parses nothing.
// And whole validations made from cached answers alone, by term and offline match, until the
// first of those answers expires: a warm grade's lookups neither read rows nor build reasons.
// Until then every row they were made from stays as it is (a row is only replaced once expired),
// so the validation is the one the rows would give again.
struct LiveValidator::Memo {
  static constexpr size_t kMaxEntries = 4096;
  std::unordered_map<std::string, std::pair<Answer, int64_t>> answers;  // key -> (answer, expires_at)
  void Put(const std::string& key, const Answer& a, int64_t expires_at) {
    if (answers.size() >= kMaxEntries) answers.clear();
    answers[key] = {a, expires_at};
  }
  struct Remembered {
    Validation validation;
    int64_t expires_at = 0;
    int cache_hits = 0;                               // what the lookup added to stats
    std::optional<std::string> openfda_last_updated;  // what it set Versions()' openfda to
  };
  std::unordered_map<std::string, Remembered> validations;  // MemoKey(term, local) -> validation
  void Put(const std::string& key, Remembered r) {
    if (validations.size() >= kMaxEntries) validations.clear();
    validations[key] = std::move(r);
  }
  // The RxNorm version row's answer (Versions()), while the row is fresh.
  json rxnav_version;
  int64_t rxnav_version_expires_at = 0;
};

// What one lookup read: whether every answer came from the cache (memo or row), the first
// expiry among them, and the side effects a remembered validation must repeat.
struct LiveValidator::Trace {
  bool from_cache = true;
  int64_t expires_at = INT64_MAX;
  int cache_hits = 0;
  std::optional<std::string> openfda_last_updated;
  void Cached(int64_t row_expires_at) {
    ++cache_hits;
    expires_at = std::min(expires_at, row_expires_at);
  }
};

struct LiveValidator::RxnavMatch {
  enum class Kind : uint8_t { kMatch, kNoMatch, kUnavailable } kind = Kind::kUnavailable;
  std::string text;  // the reason: the whole phrase for kNoMatch / kUnavailable
  bool cached = false;
  std::string rxcui, name, tty;
  std::vector<std::pair<std::string, std::string>> ingredients;  // (RxCUI, name), numerically sorted
  double score = 0;
};

namespace {

// What an HTTP-200 JSON body says, per endpoint: an answer, a negative answer, or not the shape.
enum class Shape : uint8_t { kAnswer, kNegative, kWrong };

Shape Classify(UpstreamEndpoint endpoint, const json& j) {
  switch (endpoint) {
    case UpstreamEndpoint::kApproximateTerm: {
      auto cands = ParseApproximateTerm(j);
      if (!cands) return Shape::kWrong;
      return cands->empty() ? Shape::kNegative : Shape::kAnswer;
    }
    case UpstreamEndpoint::kProperties: {  // unknown id -> {}
      if (j.is_object() && j.empty()) return Shape::kNegative;
      const json* p = Member(j, "properties");
      if (!p || !p->is_object()) return Shape::kWrong;
      return Str(*p, "rxcui").empty() ? Shape::kNegative : Shape::kAnswer;
    }
    case UpstreamEndpoint::kRelatedIn: {
      const json* g = Member(j, "relatedGroup");
      if (!g || !g->is_object()) return Shape::kWrong;
      const json* groups = Member(*g, "conceptGroup");
      if (groups && groups->is_array())
        for (const json& cg : *groups) {
          const json* props = Member(cg, "conceptProperties");
          if (Str(cg, "tty") == "IN" && props && props->is_array() && !props->empty()) return Shape::kAnswer;
        }
      return Shape::kNegative;
    }
    case UpstreamEndpoint::kVersion:
      return Str(j, "version").empty() ? Shape::kWrong : Shape::kAnswer;
    case UpstreamEndpoint::kNdc: {
      const json* r = Member(j, "results");
      if (!r || !r->is_array()) return Shape::kWrong;
      return r->empty() ? Shape::kNegative : Shape::kAnswer;
    }
  }
  return Shape::kWrong;
}

// What an unusable HTTP answer stands for: "unavailable" + "http 500" reads
// "rxnav unavailable (http 500)" in a reason and "last: http 500" in the breaker.
struct HttpProblem {
  std::string kind, detail;
  std::string Phrase() const { return kind + " (" + detail + ")"; }
};

HttpProblem DescribeHttpError(long status, const std::string& body) {
  std::string http = "http " + std::to_string(status);
  if (status == 403 || status == 429) return {"rate limited", http};
  if (status >= 500) return {"unavailable", http};
  if (status != 200) return {"unexpected answer", http};
  json j = json::parse(body, nullptr, false);
  return {"answer malformed", j.is_discarded() ? "not JSON" : "unexpected JSON shape"};
}

constexpr size_t kErrorBodyKept = 4096;

}  // namespace

LiveValidator::LiveValidator(const Terminology& terminology, std::unique_ptr<DrugCacheStore> cache, LiveConfig config,
                             Clock clock)
    : terminology_(terminology),
      cache_(cache ? std::move(cache) : std::make_unique<MemoryDrugCache>()),
      config_(std::move(config)),
      clock_(clock ? std::move(clock) : Clock(SystemClockMillis)),
      memo_(std::make_unique<Memo>()),
      note_started_us_(SteadyMicros()) {
  auto make = [&](const std::string& name, const std::string& base, double rate, double burst, int* counter) {
    auto up = std::make_unique<Upstream>();
    up->name = name;
    up->base = base;
    up->guard = config_.shared_guards
                    ? SharedUpstreamGuard(base, config_.breaker, rate, burst, config_.rate_state_dir.value_or(""))
                    : std::make_shared<UpstreamGuard>(config_.breaker, rate, burst);
    up->http = std::make_unique<HttpClient>(config_.http);
    up->requests = counter;
    return up;
  };
  rxnav_ = make("rxnav", config_.rxnav_base, config_.rxnav_rate, config_.rxnav_burst, &stats_.rxnav_requests);
  if (!config_.openfda_base.empty())
    openfda_ = make("openfda", config_.openfda_base, config_.openfda_rate, config_.openfda_burst, &stats_.openfda_requests);
}

LiveValidator::~LiveValidator() = default;

void LiveValidator::BeginNote() {
  std::lock_guard<std::mutex> lock(mu_);
  note_started_us_ = SteadyMicros();
  note_requests_ = 0;
  note_budget_cut_ = false;
}

std::string LiveValidator::BudgetSpent(int64_t& remaining_ms) const {
  remaining_ms = config_.note_budget_ms - (SteadyMicros() - note_started_us_) / 1000;
  if (note_requests_ >= config_.note_budget_requests)
    return "live-validation budget spent (" + std::to_string(config_.note_budget_requests) +
           (config_.note_budget_requests == 1 ? " upstream request" : " upstream requests") + " per note)";
  // A request cut at the budget may return a little before the clock says it is spent (the
  // timeout is whole milliseconds): the budget is spent all the same.
  if (remaining_ms <= 0 || note_budget_cut_)
    return "live-validation budget spent (" + FormatSeconds(config_.note_budget_ms) + " per note)";
  return {};
}

LiveStats LiveValidator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::optional<LiveValidator::Answer> LiveValidator::FromRow(const Upstream& up, Endpoint endpoint,
                                                          const CacheRow& row) const {
  Answer a;
  a.cached = true;
  a.fetched_at = row.fetched_at;
  if (row.status == "error") {
    a.kind = Answer::Kind::kUnavailable;
    a.failure = "cache (" + up.name + ", fetched " + FormatUtcSeconds(row.fetched_at) + "): " + up.name + " " +
                DescribeHttpError(row.http_status, row.response).Phrase();
    return a;
  }
  auto doc = std::make_shared<json>(json::parse(row.response, nullptr, false));
  if (doc->is_discarded()) return std::nullopt;  // a damaged row
  a.doc = doc;
  Shape shape = Classify(endpoint, *doc);
  if (row.status == "not_found") {
    a.kind = Answer::Kind::kNotFound;
  } else if (row.status == "ok" && shape != Shape::kWrong) {
    a.kind = shape == Shape::kAnswer ? Answer::Kind::kOk : Answer::Kind::kNotFound;
  } else {
    return std::nullopt;  // not what this code can read
  }
  return a;
}

LiveValidator::Answer LiveValidator::Fetch(Upstream& up, Endpoint endpoint, const std::string& key,
                                           const std::string& term, const std::string& url) {
  int64_t now = clock_();
  if (auto it = memo_->answers.find(key); it != memo_->answers.end() && it->second.second > now) {
    ++stats_.cache_hits;
    if (trace_) trace_->Cached(it->second.second);
    return it->second.first;
  }
  if (std::optional<CacheRow> row = cache_->Get(key); row && row->expires_at > now) {
    if (std::optional<Answer> cached = FromRow(up, endpoint, *row)) {
      ++stats_.cache_hits;
      if (trace_) trace_->Cached(row->expires_at);
      memo_->Put(key, *cached, row->expires_at);
      return *cached;
    }
  }
  if (trace_) trace_->from_cache = false;
  Answer a;
  if (!up.guard->breaker.Allow(now)) {
    a.failure = up.name + " " + up.guard->breaker.Describe();
    return a;
  }
  // The note's budget: no request once it is spent, no wait for the limiter past it, and no
  // request allowed to run past it.
  int64_t remaining_ms = 0;
  std::string spent = BudgetSpent(remaining_ms);
  std::optional<int64_t> waited;
  if (spent.empty() && !(waited = up.guard->limiter.TryAcquire(remaining_ms * 1000)))
    spent = "live-validation budget spent (" + FormatSeconds(config_.note_budget_ms) +
            " per note; the rate limit's wait would pass it)";
  if (!spent.empty()) {
    ++stats_.over_budget;
    a.failure = up.name + " not asked: " + spent;
    return a;
  }
  remaining_ms -= *waited / 1000;
  const int64_t timeout_ms = std::max<int64_t>(1, std::min(remaining_ms, config_.http.total_timeout_ms));
  const bool cut = timeout_ms < config_.http.total_timeout_ms;
  ++*up.requests;
  ++note_requests_;
  HttpResult r = up.http->Get(url, timeout_ms);
  now = clock_();
  a.fetched_at = now;
  if (!r.transport_ok) {
    if (cut && r.timed_out()) {
      // Cut short by the note's budget, not the upstream's fault: the breaker does not count it.
      note_budget_cut_ = true;
      a.failure = up.name + " unreachable (no answer before the live-validation budget of " +
                  FormatSeconds(config_.note_budget_ms) + " per note ran out)";
      return a;
    }
    up.guard->breaker.RecordFailure(now, r.timed_out(), r.error);
    a.failure = up.name + (r.failure == HttpFailure::kTooLarge ? " " + r.error : " unreachable (" + r.error + ")");
    return a;
  }
  CacheRow row{key, term, up.name, "error", static_cast<int>(r.http_status), {}, now, now + config_.ttl_error_s * 1000};
  bool healthy = false;
  if (r.http_status == 200 || (r.http_status == 404 && endpoint == Endpoint::kNdc)) {
    json j = json::parse(r.body, nullptr, false);
    Shape shape = Shape::kWrong;
    if (!j.is_discarded()) {
      if (r.http_status == 404) {  // openFDA: a search without matches is 404 {"error":{"code":"NOT_FOUND"}}
        const json* error = Member(j, "error");
        shape = error && Str(*error, "code") == "NOT_FOUND" ? Shape::kNegative : Shape::kWrong;
      } else {
        shape = Classify(endpoint, j);
      }
    }
    if (shape != Shape::kWrong) {
      healthy = true;
      a.doc = std::make_shared<const json>(std::move(j));
      a.kind = shape == Shape::kAnswer ? Answer::Kind::kOk : Answer::Kind::kNotFound;
      row.status = shape == Shape::kAnswer ? "ok" : "not_found";
      int64_t ttl = endpoint == Endpoint::kVersion ? config_.ttl_version_s
                    : shape == Shape::kAnswer      ? config_.ttl_ok_s
                                                   : config_.ttl_negative_s;
      row.expires_at = now + ttl * 1000;
      row.response = r.body;
    }
  }
  if (!healthy) {
    HttpProblem problem = DescribeHttpError(r.http_status, r.body);
    up.guard->breaker.RecordFailure(now, false, problem.detail);
    a.failure = up.name + " " + problem.Phrase();
    row.response = r.body.substr(0, kErrorBodyKept);
  } else {
    up.guard->breaker.RecordSuccess();
  }
  cache_->Put(row);
  if (healthy) {
    Answer memo = a;  // later uses read it as the cache row it now is
    memo.cached = true;
    memo_->Put(key, memo, row.expires_at);
  }
  return a;
}

void LiveValidator::RefreshVersion() {
  const std::string key = "rxnav:version:current";
  if (std::optional<CacheRow> row = cache_->Get(key); row && row->expires_at > clock_() && row->status == "ok") return;
  Fetch(*rxnav_, Endpoint::kVersion, key, "current", rxnav_->base + "/version.json");
}

LiveValidator::RxnavMatch LiveValidator::LookupRxnav(std::string_view term_view, const std::string& query) {
  const std::string term(term_view);
  RxnavMatch m;
  Answer a = Fetch(*rxnav_, Endpoint::kApproximateTerm, "rxnav:approximateTerm:" + query, term,
                   rxnav_->base + "/approximateTerm.json?term=" + UrlEncode(query) +
                       "&maxEntries=" + std::to_string(config_.approximate_max_entries) + "&option=1");
  if (a.kind == Answer::Kind::kUnavailable) {
    m.text = a.failure;
    return m;
  }
  if (!a.cached) RefreshVersion();
  bool cached = a.cached;
  auto prefix = [&] {
    return cached ? "cache (rxnav, fetched " + FormatUtcSeconds(a.fetched_at) + "): " : std::string("rxnav: ");
  };
  if (a.kind == Answer::Kind::kNotFound) {
    m.kind = RxnavMatch::Kind::kNoMatch;
    m.text = prefix() + "no candidate for \"" + term + "\"";
    return m;
  }
  std::vector<ApproximateCandidate> candidates = ParseApproximateTerm(a.body()).value_or(std::vector<ApproximateCandidate>{});
  std::string first;  // the best candidate, for the no-match reason
  int tried = 0;
  for (const ApproximateCandidate& c : candidates) {
    if (tried++ >= config_.max_candidates) break;
    Answer p = Fetch(*rxnav_, Endpoint::kProperties, "rxnav:properties:" + c.rxcui, c.rxcui,
                     rxnav_->base + "/rxcui/" + UrlEncode(c.rxcui) + "/properties.json");
    if (p.kind == Answer::Kind::kUnavailable) {
      m.text = p.failure;
      return m;
    }
    cached = cached && p.cached;
    if (p.kind != Answer::Kind::kOk) continue;
    const json& props = *Member(p.body(), "properties");
    std::string name = Str(props, "name"), tty = Str(props, "tty");
    if (first.empty()) first = "rank-" + std::to_string(c.rank) + " " + name + " (" + c.rxcui + ")";
    if (tty != "IN" && tty != "PIN" && tty != "MIN" && tty != "BN") continue;
    NameCheck check = CheckName(term, name);
    if (!check.ok) continue;
    std::vector<std::pair<std::string, std::string>> ingredients;
    if (tty == "IN") {
      ingredients.emplace_back(c.rxcui, name);
    } else {
      Answer rel = Fetch(*rxnav_, Endpoint::kRelatedIn, "rxnav:related_in:" + c.rxcui, c.rxcui,
                         rxnav_->base + "/rxcui/" + UrlEncode(c.rxcui) + "/related.json?tty=IN");
      if (rel.kind == Answer::Kind::kUnavailable) {
        m.text = rel.failure;
        return m;
      }
      cached = cached && rel.cached;
      if (rel.kind != Answer::Kind::kOk) continue;  // no ingredient: not a drug we can grade
      for (const json& cg : *Member(*Member(rel.body(), "relatedGroup"), "conceptGroup")) {
        const json* cps = Member(cg, "conceptProperties");
        if (Str(cg, "tty") != "IN" || !cps || !cps->is_array()) continue;
        for (const json& cp : *cps)
          if (!Str(cp, "rxcui").empty()) ingredients.emplace_back(Str(cp, "rxcui"), Str(cp, "name"));
      }
      std::sort(ingredients.begin(), ingredients.end(), [](const auto& x, const auto& y) { return NumericLess(x.first, y.first); });
      ingredients.erase(std::unique(ingredients.begin(), ingredients.end()), ingredients.end());
    }
    m.kind = RxnavMatch::Kind::kMatch;
    m.cached = cached;
    m.rxcui = c.rxcui;
    m.name = name;
    m.tty = tty;
    m.ingredients = std::move(ingredients);
    size_t len = std::max<size_t>(1, NormalizePhrase(term).size());
    m.score = Round4(check.kind == MatchKind::kApproximate ? 1.0 - static_cast<double>(check.distance) / static_cast<double>(len) : 1.0);
    std::string ids;
    for (const auto& [id, in_name] : m.ingredients) ids += (ids.empty() ? "" : " + ") + in_name + " (" + id + ")";
    std::string what = tty == "IN"  ? name + " (" + c.rxcui + ")"
                       : tty == "BN" ? "brand " + name + " (" + c.rxcui + ") of " + ids
                       : tty == "PIN" ? name + " (" + c.rxcui + "), precise ingredient of " + ids
                                      : name + " (" + c.rxcui + ") of " + ids;
    std::string how = check.kind == MatchKind::kExact      ? ""
                      : check.kind == MatchKind::kNormalized ? " for \"" + term + "\""
                                                             : " for \"" + term + "\", edit distance " + std::to_string(check.distance);
    m.text = prefix() + "rank-" + std::to_string(c.rank) + " match " + what + how;
    return m;
  }
  m.kind = RxnavMatch::Kind::kNoMatch;
  m.text = prefix() + std::to_string(candidates.size()) + (candidates.size() == 1 ? " candidate" : " candidates") +
           " for \"" + term + "\", none named like it" + (first.empty() ? "" : " (" + first + ")");
  return m;
}

void LiveValidator::OfflineForms(Validation& v) const {
  v.dose_forms.clear();
  for (const std::string& r : v.ingredients)
    if (const IngredientInfo* info = terminology_.Ingredient(r))
      for (const auto& f : info->dose_forms)
        if (std::find(v.dose_forms.begin(), v.dose_forms.end(), f) == v.dose_forms.end()) v.dose_forms.push_back(f);
}

void LiveValidator::AddOpenFda(Validation& v, const std::vector<std::pair<std::string, std::string>>& ingredients) {
  OfflineForms(v);
  if (!openfda_) return;
  std::vector<std::string> names;
  for (const auto& [id, name] : ingredients) names.push_back(Lower(name));
  std::sort(names.begin(), names.end());
  const std::string what = JoinList(names, " / ");
  const std::string offline_forms = "dose forms from offline RxNorm " + terminology_.release_date();
  std::string search;
  for (const std::string& n : names) search += (search.empty() ? "" : "+AND+") + std::string("generic_name:") + UrlEncode("\"" + n + "\"");
  Answer a = Fetch(*openfda_, Endpoint::kNdc, "openfda:ndc:" + NormalizePhrase(what), what,
                   openfda_->base + "/drug/ndc.json?search=" + search + "&limit=" + std::to_string(config_.openfda_limit));
  if (a.kind == Answer::Kind::kUnavailable) {
    v.reason += "; " + a.failure + ": " + offline_forms;
    return;
  }
  std::string prefix = a.cached ? "cache (openfda, fetched " + FormatUtcSeconds(a.fetched_at) + "): " : "openfda: ";
  if (const json* meta = Member(a.body(), "meta"); meta && !Str(*meta, "last_updated").empty()) {
    openfda_last_updated_ = Str(*meta, "last_updated");
    if (trace_) trace_->openfda_last_updated = openfda_last_updated_;
  }
  if (a.kind == Answer::Kind::kNotFound) {
    v.reason += "; " + prefix + "no NDC product for " + what + " (" + offline_forms + ")";
    return;
  }
  std::set<std::string> forms, routes;
  const json& results = *Member(a.body(), "results");
  for (const json& p : results) {
    if (std::string f = Str(p, "dosage_form"); !f.empty()) forms.insert(f);
    if (const json* rs = Member(p, "route"); rs && rs->is_array())
      for (const json& r : *rs)
        if (r.is_string() && !r.get_ref<const std::string&>().empty()) routes.insert(r.get<std::string>());
  }
  v.dose_forms.assign(forms.begin(), forms.end());
  v.routes.assign(routes.begin(), routes.end());
  std::string count = std::to_string(results.size());
  if (const json* meta = Member(a.body(), "meta"))
    if (const json* res = Member(*meta, "results"); res && Num(*res, "total", 0) > static_cast<double>(results.size()))
      count += " of " + std::to_string(static_cast<int64_t>(Num(*res, "total", 0)));
  v.reason += "; " + prefix + count + (results.size() == 1 ? " NDC product" : " NDC products") + " for " + what + " (" +
              std::to_string(forms.size()) + (forms.size() == 1 ? " dosage form" : " dosage forms") +
              "; routes: " + (routes.empty() ? "none" : JoinList(v.routes, ", ")) + ")";
}

namespace {

// The memo key of a validation: the term as written and the offline match given with it.
std::string MemoKey(std::string_view term, const std::optional<TermMatch>& local) {
  std::string key(term);
  key += '\0';
  if (local)
    key += std::to_string(local->concept_id) + ':' + std::to_string(static_cast<int>(local->kind)) + ':' +
           std::to_string(local->distance) + ':' + std::to_string(local->token_count);
  return key;
}

}  // namespace

Validation LiveValidator::Validate(std::string_view term, const std::optional<TermMatch>& local) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = MemoKey(term, local);
  if (auto it = memo_->validations.find(key); it != memo_->validations.end() && it->second.expires_at > clock_()) {
    stats_.cache_hits += it->second.cache_hits;
    if (it->second.openfda_last_updated) openfda_last_updated_ = *it->second.openfda_last_updated;
    return it->second.validation;
  }
  Trace trace;
  trace_ = &trace;
  struct Untrace {
    Trace*& t;
    ~Untrace() { t = nullptr; }
  } untrace{trace_};
  Validation v = Lookup(term, local);
  if (trace.from_cache && trace.cache_hits > 0)
    memo_->Put(key, Memo::Remembered{v, trace.expires_at, trace.cache_hits, trace.openfda_last_updated});
  return v;
}

Validation LiveValidator::Lookup(std::string_view term, const std::optional<TermMatch>& local) {
  Validation offline = OfflineValidation(terminology_, term, local);
  const std::string query = NormalizePhrase(term);
  if (query.empty()) return offline;
  RxnavMatch m = LookupRxnav(term, query);
  if (m.kind != RxnavMatch::Kind::kMatch) {
    offline.reason = m.text + "; " + offline.reason;
    return offline;
  }
  Validation v;
  v.term = std::string(term);
  v.found = true;
  v.source = m.cached ? "cache" : "rxnav";
  v.rxcui = m.rxcui;
  v.name = m.name;
  v.tty = m.tty;
  std::vector<std::string> names;
  for (const auto& [id, name] : m.ingredients) {
    v.ingredients.push_back(id);
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  v.ingredient = JoinList(names, " / ");
  v.score = m.score;
  if (v.ingredients.size() == 1)
    if (const IngredientInfo* info = terminology_.Ingredient(v.ingredients.front())) v.strengths = info->strengths;
  v.reason = m.text;
  AddOpenFda(v, m.ingredients);
  return v;
}

json LiveValidator::Versions() {
  std::lock_guard<std::mutex> lock(mu_);
  // A fresh version row is not replaced before it expires: its version is read once until then.
  json rxnav = nullptr;
  if (memo_->rxnav_version_expires_at > clock_()) {
    rxnav = memo_->rxnav_version;
  } else if (std::optional<CacheRow> row = cache_->Get("rxnav:version:current"); row && row->status == "ok") {
    json j = json::parse(row->response, nullptr, false);
    if (!j.is_discarded() && !Str(j, "version").empty()) rxnav = Str(j, "version");
    memo_->rxnav_version = rxnav;
    memo_->rxnav_version_expires_at = row->expires_at;
  }
  return {{"offline", terminology_.version()},
          {"offline_release", terminology_.release_date()},
          {"rxnav", rxnav},
          {"openfda", openfda_last_updated_.empty() ? json(nullptr) : json(openfda_last_updated_)}};
}

}  // namespace scribe
