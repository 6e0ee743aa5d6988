// rxnav.h — live drug validation: RxNav approximateTerm + properties and openFDA NDC, behind
// drug_cache, falling back to the offline terminology with a reason (docs/live-validation.md).
//
//   LiveValidator validator(DefaultTerminology(), std::make_unique<MemoryDrugCache>(), LiveConfigFromEnv());
//   Validation v = validator.Validate("sertaline", std::nullopt);
//   v.reason  // "rxnav: rank-1 match sertraline (36437) for \"sertaline\", edit distance 1; openfda: ..."
//
// Lookup order for a drug string: a fresh cache row → RxNav → the offline terminology.
//   1. approximateTerm.json?term=<normalised term>: candidates ordered by rank then score
//      (scores have no absolute meaning), one per RxCUI.
//   2. rxcui/{id}/properties.json for the best few candidates, in order: the first whose term
//      type is IN, PIN, MIN or BN and whose name, normalised like the offline terminology
//      (case, punctuation, salts, strengths), equals the term or is within a small edit
//      distance, is the match.
//   3. rxcui/{id}/related.json?tty=IN turns a BN, PIN or MIN into its ingredient RxCUIs.
//   4. openFDA drug/ndc.json?search=generic_name:"<ingredient>" gives dosage forms and routes
//      of drugs RxNav matched.
// Every request goes through its upstream's circuit breaker and rate limiter and every answer
// (negative ones and HTTP errors too, with shorter lives) is cached. Transport failures, rate
// limits (403/429) and 5xx answers make the drug fall back to the offline answer, with the
// failure at the start of its reason.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drug_cache_store.h"
#include "http_client.h"
#include "terminology.h"
#include "validator.h"

namespace scribe {

// Unix milliseconds; injectable so tests can move time.
using Clock = std::function<int64_t()>;
int64_t SystemClockMillis();

// Stops calling an upstream after consecutive failures, for a cooling period; then lets one
// probe request through (success closes it, failure re-opens it). Thread-safe.
class CircuitBreaker {
 public:
  struct Options {
    int failure_threshold = 3;   // consecutive failures of any kind
    int timeout_threshold = 1;   // consecutive timeouts (each already cost the whole time budget)
    int64_t cooldown_ms = 60'000;
  };
  explicit CircuitBreaker(Options options) : options_(options) {}

  // True when a request may go out now: closed, or cooled down and no probe in flight.
  bool Allow(int64_t now_ms);
  void RecordSuccess();
  void RecordFailure(int64_t now_ms, bool timeout, const std::string& what);
  bool open() const;
  // "circuit open after 3 failures (last: http 500)"
  std::string Describe() const;

 private:
  Options options_;
  mutable std::mutex mu_;
  int failures_ = 0, timeouts_ = 0, opened_after_ = 0;
  bool open_ = false, probing_ = false;
  int64_t open_until_ = 0;
  std::string last_failure_;
};

// Token bucket: `per_second` tokens a second, at most `burst` saved. With burst 1 request
// starts are spaced 1/per_second apart, so no one-second window holds more than per_second.
// A request that must wait reserves its slot by moving the bucket's time forward (tokens stay
// in [0, burst]); callers reserve under the lock and sleep outside it. Thread-safe.
//
// With a `shared_state_file` the bucket lives in that file under flock(2), so every process
// using the same file (the FastCGI workers of one database) shares one budget. The file is
// opened with O_NOFOLLOW and used only when it is a regular file owned by this user with one
// link; its contents are used only when they are this format, finite, tokens within
// [0, burst] and the time no further ahead than kMaxAheadMicros (else the bucket restarts
// full). When the file cannot be used the bucket stays in-process and shared_problem() says
// why. `now` must be a clock all sharers agree on (the default, CLOCK_MONOTONIC, is).
class RateLimiter {
 public:
  using Micros = std::function<int64_t()>;
  using Sleep = std::function<void(int64_t micros)>;
  // The furthest a reservation may lie ahead: a state file saying more is damaged.
  static constexpr int64_t kMaxAheadMicros = 120'000'000;
  RateLimiter(double per_second, double burst, Micros now = {}, Sleep sleep = {}, std::string shared_state_file = {});
  // Waits until a request may start; returns the microseconds waited (at most kMaxAheadMicros).
  int64_t Acquire();
  // Like Acquire, unless the wait would exceed `max_wait_us`: then reserves nothing, does not
  // wait, and returns nothing.
  std::optional<int64_t> TryAcquire(int64_t max_wait_us);
  // Why the shared state file was not used on the last call ("... is a symbolic link"), or "".
  std::string shared_problem() const;

 private:
  // The wait for a token from (tokens, last) at time t, or nothing when over max_wait; on
  // success (tokens, last) are updated.
  std::optional<int64_t> Take(double& tokens, int64_t& last, int64_t t, int64_t max_wait) const;

  double rate_, burst_, tokens_;
  int64_t last_;
  Micros now_;
  Sleep sleep_;
  std::string file_;
  std::string problem_;
  mutable std::mutex mu_;
};

// The breaker and limiter of one upstream. Shared across every connection of the process
// (keyed by base URL), because RxNav's limit is per client, not per connection.
// The breaker is per process; the limiter is per machine when given a state file.
struct UpstreamGuard {
  UpstreamGuard(CircuitBreaker::Options breaker_options, double rate, double burst, std::string rate_state_file = {})
      : breaker(breaker_options), limiter(rate, burst, {}, {}, std::move(rate_state_file)) {}
  CircuitBreaker breaker;
  RateLimiter limiter;
};
// The guard of an upstream base URL, created on first use. With a non-empty `rate_state_dir`
// its limiter state is the file <rate_state_dir>/scribe-rate-<hash of base_url>.
std::shared_ptr<UpstreamGuard> SharedUpstreamGuard(const std::string& base_url, CircuitBreaker::Options breaker_options,
                                                   double rate, double burst, const std::string& rate_state_dir);
// Forgets every shared guard (benchmarks and tests that need a closed breaker).
void ResetSharedUpstreamGuards();

struct LiveConfig {
  bool offline = false;                                       // SCRIBE_OFFLINE=1: no network at all
  std::string rxnav_base = "https://rxnav.nlm.nih.gov/REST";  // SCRIBE_RXNAV_URL
  std::string openfda_base = "https://api.fda.gov";           // SCRIBE_OPENFDA_URL; "off" disables openFDA
  HttpOptions http;                  // SCRIBE_HTTP_CONNECT_TIMEOUT_MS (<= 2000), SCRIBE_HTTP_TIMEOUT_MS (<= 5000),
                                     // SCRIBE_HTTP_MAX_BYTES, SCRIBE_CA_BUNDLE
  int64_t ttl_ok_s = 7 * 86'400;     // SCRIBE_CACHE_TTL_S: answers
  int64_t ttl_negative_s = 86'400;   // SCRIBE_CACHE_NEGATIVE_TTL_S: no candidate, unknown id, no NDC product
  int64_t ttl_error_s = 600;         // SCRIBE_CACHE_ERROR_TTL_S: HTTP errors and unusable answers
  int64_t ttl_version_s = 86'400;    // RxNorm version
  CircuitBreaker::Options breaker;   // SCRIBE_BREAKER_FAILURES, SCRIBE_BREAKER_TIMEOUTS, SCRIBE_BREAKER_COOLDOWN_S
  double rxnav_rate = 20, rxnav_burst = 1;      // SCRIBE_RXNAV_RATE (requests/s, at most 20)
  double openfda_rate = 4, openfda_burst = 10;  // SCRIBE_OPENFDA_RATE (openFDA allows 240/min without a key)
  int max_candidates = 4;            // RxCUIs whose properties are checked, best first
  int approximate_max_entries = 10;  // maxEntries sent to approximateTerm
  int openfda_limit = 20;            // limit sent to drug/ndc.json
  // The live-validation budget of one note (BeginNote): wall time and upstream requests
  // (RxNav and openFDA together) after which the remaining lookups answer from the cache or
  // offline, with a reason naming the budget. SCRIBE_LIVE_BUDGET_MS (at most 30000),
  // SCRIBE_LIVE_BUDGET_REQUESTS (0 = cache and offline only).
  int64_t note_budget_ms = 5000;
  int note_budget_requests = 40;
  bool shared_guards = true;         // false: this validator gets its own breakers and limiters (tests)
  // SCRIBE_RATE_DIR: where the limiters' state files live. Unset (nullopt): the database's
  // directory, filled in by the SQL shell (MakeDrugValidator); "" ("off"): per process.
  std::optional<std::string> rate_state_dir;
};

// The configuration the environment asks for (documented in docs/live-validation.md).
// Throws std::invalid_argument naming the variable when a value is not usable.
LiveConfig LiveConfigFromEnv();

struct ApproximateCandidate {
  std::string rxcui, name, source;  // name only when some atom of the RxCUI carried one
  int rank = 0;
  double score = 0;                 // RxNav's score: orders candidates of one answer, nothing more
};
// The candidates of an approximateTerm answer (current or pre-2019 shape), one per RxCUI, best
// first: rank ascending, then score descending, then answer order. Empty for a no-hit answer
// ({"approximateGroup":{"inputTerm":null}}); nothing when the JSON is not that shape.
std::optional<std::vector<ApproximateCandidate>> ParseApproximateTerm(const nlohmann::json& answer);

// A drug name as the offline terminology compares it: NormalizePhrase, then salt, formulation
// and strength words and numbers dropped ("Sertraline HCl 50 mg" -> "sertraline").
std::string DrugNameKey(std::string_view name);

// The upstream requests live validation makes (one cache key prefix each).
enum class UpstreamEndpoint : uint8_t { kApproximateTerm, kProperties, kRelatedIn, kVersion, kNdc };

struct LiveStats {
  int rxnav_requests = 0, openfda_requests = 0, cache_hits = 0;
  int over_budget = 0;  // lookups answered without asking an upstream because the note's budget was spent
};

class LiveValidator : public DrugValidator {
 public:
  LiveValidator(const Terminology& terminology, std::unique_ptr<DrugCacheStore> cache, LiveConfig config,
                Clock clock = {});
  ~LiveValidator() override;

  Validation Validate(std::string_view term, const std::optional<TermMatch>& local) override;
  // {"offline", "offline_release", "rxnav": RxNorm version or null, "openfda": meta.last_updated or null}.
  // Never touches the network: the RxNorm version is fetched alongside live answers and cached.
  nlohmann::json Versions() override;
  // Starts the note's budget (config().note_budget_ms / note_budget_requests) again. Until the
  // first call the budget runs from construction.
  void BeginNote() override;

  LiveStats stats() const;
  const LiveConfig& config() const { return config_; }

 private:
  struct Upstream;
  struct Answer;
  struct RxnavMatch;
  struct Memo;
  struct Trace;
  using Endpoint = UpstreamEndpoint;

  // Why the current note may not ask an upstream any more ("live-validation budget spent
  // (40 upstream requests per note)"), or "" while it may; `remaining_ms` gets the time left.
  std::string BudgetSpent(int64_t& remaining_ms) const;
  // One request through cache, breaker, budget and limiter; stores what came back.
  Answer Fetch(Upstream& up, Endpoint endpoint, const std::string& key, const std::string& term, const std::string& url);
  // A cached row as an answer; nothing when the row cannot be read (then it is refetched).
  std::optional<Answer> FromRow(const Upstream& up, Endpoint endpoint, const CacheRow& row) const;
  // Validate without the validation memo.
  Validation Lookup(std::string_view term, const std::optional<TermMatch>& local);
  RxnavMatch LookupRxnav(std::string_view term, const std::string& query);
  void RefreshVersion();
  void AddOpenFda(Validation& v, const std::vector<std::pair<std::string, std::string>>& ingredients);
  void OfflineForms(Validation& v) const;

  const Terminology& terminology_;
  std::unique_ptr<DrugCacheStore> cache_;
  LiveConfig config_;
  Clock clock_;
  std::unique_ptr<Upstream> rxnav_, openfda_;
  std::unique_ptr<Memo> memo_;
  Trace* trace_ = nullptr;  // what the lookup Validate is making has read, while it runs
  std::string openfda_last_updated_;
  int64_t note_started_us_ = 0;  // steady clock: when the current note's budget began
  int note_requests_ = 0;        // upstream requests made for the current note
  bool note_budget_cut_ = false; // a request of this note was cut at its time budget: spent
  LiveStats stats_;
  mutable std::mutex mu_;
};

}  // namespace scribe
