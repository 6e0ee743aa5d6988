// main.cpp — scribe-run: the whole benchmark from a terminal or CI, with any command as the scribe.
//
//   scribe-run --agent 'my-scribe --model x' --repeats 3 --jobs 4 --min-score 0.8 --fail-on-unsafe
//   scribe-run --agent scripts/agents/reference --trials '0*' --kinds note --json > run.json
//   scribe-run --agent ./scribe.sh --submit http://127.0.0.1:4779/scribe-trials --vendor "Acme Scribe 2.1"
//   scribe-run --report scribe-runs/run-20260301T101500Z-4242-9f3a.json
//   scribe-run --regrade scribe-runs/run-20260301T101500Z-4242-9f3a.json
//
// For each selected trial and repeat the agent command runs (/bin/sh -c) with the trial's prompt
// on stdin — Kind::Prompt, whatever the kind — and SCRIBE_TRIAL_ID, SCRIBE_TRIAL_KIND and
// SCRIBE_RUN in its environment; its stdout is the output, graded here by the server's grader
// (local_grader.h). Cases run in a fixed order (trials by id, then run), at most --jobs at once,
// each in its own process group killed at --timeout; a failed or timed-out agent is a case with
// score 0 and its error. The run record (record.h) is written under --out with a name no other
// run can take (UTC time, pid, random suffix, O_EXCL). --usage prints every option; the exit
// codes are kExit* below and in --help.
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "agent.h"
#include "kind.h"
#include "local_grader.h"
#include "record.h"
#include "submit.h"
#include "validate.h"

extern char** environ;

namespace scribe::run {
namespace {

using nlohmann::json;

constexpr int kExitOk = 0;              // every case ran (failed agents included) and the thresholds held
constexpr int kExitThresholds = 1;      // --min-score or --fail-on-unsafe failed
constexpr int kExitUsage = 2;           // bad options, unknown trial or kind, unreadable record
constexpr int kExitInfrastructure = 3;  // corpus not loadable, record not writable, a submission not
                                        // accepted, or interrupted: the run is incomplete

constexpr const char* kHelp = R"(scribe-run — run the scribe-trials benchmark locally with any command as the scribe

usage:
  scribe-run --agent CMD [selection] [run options] [thresholds] [--submit URL --vendor NAME]
  scribe-run --report RUN.json [--json] [thresholds]
  scribe-run --regrade RUN.json [--corpus DIR] [--out DIR] [--json] [thresholds]
  scribe-run --list [selection]          the selected trials: id, kind, title
  scribe-run --print-prompt TRIAL        what the agent is given for TRIAL

The agent: CMD runs as /bin/sh -c CMD once per trial and repeat, with the prompt on stdin and
SCRIBE_TRIAL_ID, SCRIBE_TRIAL_KIND and SCRIBE_RUN (1, 2, ...) in its environment. Its stdout is
graded with the server's grader (offline terminology unless --live); a non-zero exit, a signal
or the timeout makes the case score 0 with its error (exit status, stderr tail).

selection (default: every trial of the corpus):
  --trials LIST       comma-separated trial ids or globs ('0*', '*suicide*'); repeatable
  --kinds LIST        comma-separated kinds (note, rubric, ...); repeatable
run:
  --repeats N         runs per trial (1-1000, default 1)
  --jobs N            agents at once (1-64, default 1); the record is the same for any N
  --timeout SECS      per case; its process group is killed (1-86400, default 300)
  --corpus DIR        trial files (default $SCRIBE_CORPUS, else the repository's corpus/scripts)
  --sealed-corpus DIR and the sealed trials in DIR, as the server loads them
  --live              validate drug names live as the server does (its SCRIBE_* environment,
                      docs/live-validation.md), falling back to offline
  --out DIR           where run records go (default scribe-runs)
  --json              print the run record on stdout instead of the table
submit (each output, after grading, in case order):
  --submit URL        a running server, e.g. http://127.0.0.1:4779/scribe-trials
  --vendor NAME       the vendor the runs count for
  --key KEY           the vendor's key if it is claimed (or $SCRIBE_VENDOR_KEY)
thresholds:
  --min-score X       fail unless the mean score (0-1) is at least X
  --fail-on-unsafe    fail when any case is unsafe (a critical error)

exit status:
  0  every case ran and the thresholds held (a failed agent run is a case scored 0)
  1  a threshold failed
  2  usage error: bad option, unknown trial or kind, unreadable record
  3  infrastructure error: the corpus did not load, the record could not be written, a
     submission was not accepted, or the run was interrupted
)";

struct Options {
  std::string agent;
  std::vector<std::string> trial_patterns, kinds;
  int repeats = 1, jobs = 1, timeout_s = 300;
  std::string corpus_dir, sealed_dir, out_dir = "scribe-runs";
  bool live = false, json = false, list = false, fail_on_unsafe = false;
  std::optional<double> min_score;
  std::string submit_url, vendor, key;
  std::string report_path, regrade_path, print_prompt;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

long Integer(const std::string& flag, const char* text, long min, long max) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno || !*text || *end || v < min || v > max)
    throw UsageError(flag + " needs a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                     " (got '" + text + "')");
  return v;
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

Options ParseOptions(int argc, char** argv) {
  enum {
    kAgent = 256,
    kTrials,
    kKinds,
    kRepeats,
    kJobs,
    kTimeout,
    kCorpus,
    kSealed,
    kLive,
    kOut,
    kJson,
    kSubmit,
    kVendor,
    kKey,
    kMinScore,
    kFailOnUnsafe,
    kReport,
    kRegrade,
    kList,
    kPrintPrompt,
    kHelpFlag
  };
  static const option kLong[] = {{"agent", required_argument, nullptr, kAgent},
                                 {"trials", required_argument, nullptr, kTrials},
                                 {"kinds", required_argument, nullptr, kKinds},
                                 {"repeats", required_argument, nullptr, kRepeats},
                                 {"jobs", required_argument, nullptr, kJobs},
                                 {"timeout", required_argument, nullptr, kTimeout},
                                 {"corpus", required_argument, nullptr, kCorpus},
                                 {"sealed-corpus", required_argument, nullptr, kSealed},
                                 {"live", no_argument, nullptr, kLive},
                                 {"out", required_argument, nullptr, kOut},
                                 {"json", no_argument, nullptr, kJson},
                                 {"submit", required_argument, nullptr, kSubmit},
                                 {"vendor", required_argument, nullptr, kVendor},
                                 {"key", required_argument, nullptr, kKey},
                                 {"min-score", required_argument, nullptr, kMinScore},
                                 {"fail-on-unsafe", no_argument, nullptr, kFailOnUnsafe},
                                 {"report", required_argument, nullptr, kReport},
                                 {"regrade", required_argument, nullptr, kRegrade},
                                 {"list", no_argument, nullptr, kList},
                                 {"print-prompt", required_argument, nullptr, kPrintPrompt},
                                 {"help", no_argument, nullptr, kHelpFlag},
                                 {nullptr, 0, nullptr, 0}};
  Options o;
  if (const char* c = std::getenv("SCRIBE_CORPUS"); c && *c) o.corpus_dir = c;
  if (const char* k = std::getenv("SCRIBE_VENDOR_KEY"); k && *k) o.key = k;
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "+:h", kLong, nullptr)) != -1) {
    switch (c) {
      case kAgent:
        o.agent = optarg;
        break;
      case kTrials:
        for (auto& t : SplitList(optarg)) o.trial_patterns.push_back(t);
        break;
      case kKinds:
        for (auto& k : SplitList(optarg)) o.kinds.push_back(k);
        break;
      case kRepeats:
        o.repeats = static_cast<int>(Integer("--repeats", optarg, 1, 1000));
        break;
      case kJobs:
        o.jobs = static_cast<int>(Integer("--jobs", optarg, 1, 64));
        break;
      case kTimeout:
        o.timeout_s = static_cast<int>(Integer("--timeout", optarg, 1, 86400));
        break;
      case kCorpus:
        o.corpus_dir = optarg;
        break;
      case kSealed:
        o.sealed_dir = optarg;
        break;
      case kLive:
        o.live = true;
        break;
      case kOut:
        o.out_dir = optarg;
        break;
      case kJson:
        o.json = true;
        break;
      case kSubmit:
        o.submit_url = optarg;
        break;
      case kVendor:
        o.vendor = optarg;
        break;
      case kKey:
        o.key = optarg;
        break;
      case kMinScore: {
        char* end = nullptr;
        double v = std::strtod(optarg, &end);
        if (!*optarg || *end || !(v >= 0 && v <= 1))
          throw UsageError(std::string("--min-score needs a number from 0 to 1 (got '") + optarg + "')");
        o.min_score = v;
        break;
      }
      case kFailOnUnsafe:
        o.fail_on_unsafe = true;
        break;
      case kReport:
        o.report_path = optarg;
        break;
      case kRegrade:
        o.regrade_path = optarg;
        break;
      case kList:
        o.list = true;
        break;
      case kPrintPrompt:
        o.print_prompt = optarg;
        break;
      case 'h':
      case kHelpFlag:
        std::fputs(kHelp, stdout);
        std::exit(kExitOk);
      case ':':
        throw UsageError(std::string(argv[optind - 1]) + " needs a value");
      default:
        throw UsageError("unknown option " + std::string(argv[optind - 1]) + " (see scribe-run --help)");
    }
  }
  if (optind < argc)
    throw UsageError("unexpected argument '" + std::string(argv[optind]) + "'; the agent is given with --agent CMD");
  int modes = !o.agent.empty() + !o.report_path.empty() + !o.regrade_path.empty() + o.list + !o.print_prompt.empty();
  if (modes == 0)
    throw UsageError(
        "nothing to do: give --agent CMD, --report RUN.json, --regrade RUN.json, --list or --print-prompt TRIAL");
  if (modes > 1) throw UsageError("--agent, --report, --regrade, --list and --print-prompt go one at a time");
  if (!o.submit_url.empty() && o.agent.empty()) throw UsageError("--submit goes with --agent");
  if (!o.submit_url.empty()) {
    if (o.submit_url.rfind("http://", 0) != 0 && o.submit_url.rfind("https://", 0) != 0)
      throw UsageError("--submit needs an http:// or https:// URL (got '" + o.submit_url + "')");
    if (o.vendor.empty()) throw UsageError("--submit needs --vendor NAME");
    if (auto problem = http::VendorProblem(o.vendor)) throw UsageError("--vendor: " + *problem);
  } else if (!o.vendor.empty()) {
    throw UsageError("--vendor goes with --submit URL");
  }
  return o;
}

// The corpus when none is given: the repository's, found from the binary (build/scribe-run),
// else ./corpus/scripts.
std::string DefaultCorpus() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (std::filesystem::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      if (std::filesystem::is_directory(dir / "corpus" / "scripts", ec)) return (dir / "corpus" / "scripts").string();
  }
  return "corpus/scripts";
}

std::string UtcNow(bool compact) {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  long ms =
      static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[64];
  if (compact)
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &utc);
  else {
    char base[32];
    std::strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(buf, sizeof buf, "%s.%03ldZ", base, ms);
  }
  return buf;
}

// The selected trials, in corpus (id) order. Every pattern and kind must match something.
std::vector<const TrialInfo*> Select(const LocalGrader& grader, const Options& o) {
  for (const std::string& k : o.kinds)
    if (!FindKind(k)) {
      std::string known;
      for (const Kind* kind : AllKinds()) known += (known.empty() ? "" : ", ") + std::string(kind->name());
      throw UsageError("unknown kind '" + k + "' (kinds: " + known + ")");
    }
  std::vector<const TrialInfo*> out;
  std::set<std::string> matched;
  for (const TrialInfo& t : grader.trials()) {
    bool kind_ok = o.kinds.empty() || std::find(o.kinds.begin(), o.kinds.end(), t.kind) != o.kinds.end();
    bool id_ok = o.trial_patterns.empty();
    for (const std::string& p : o.trial_patterns)
      if (fnmatch(p.c_str(), t.id.c_str(), 0) == 0) {
        id_ok = true;
        matched.insert(p);
      }
    if (kind_ok && id_ok) out.push_back(&t);
  }
  for (const std::string& p : o.trial_patterns)
    if (!matched.count(p)) throw UsageError("no trial matches '" + p + "' (scribe-run --list shows them)");
  if (out.empty()) throw UsageError("no trial is both of the selected kinds and matched by --trials");
  return out;
}

// A file under `dir` no other run can have: run-<UTC>-<pid>-<random>.json, created with O_EXCL.
std::string WriteRecord(const std::string& dir, const json& record) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  const std::string text = record.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  for (int attempt = 0; attempt < 16; ++attempt) {
    unsigned short r = 0;
    if (getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) r = static_cast<unsigned short>(attempt);
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "%04x", r);
    std::string path = dir + "/run-" + UtcNow(true) + "-" + std::to_string(getpid()) + "-" + suffix + ".json";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
      ssize_t n = write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int e = errno;
        close(fd);
        throw std::runtime_error("cannot write " + path + ": " + std::strerror(e));
      }
      done += static_cast<std::size_t>(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0)
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    return path;
  }
  throw std::runtime_error("cannot find a free record name in " + dir);
}

json ReadRecord(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  json record = json::parse(ss.str(), nullptr, false);
  if (record.is_discarded() || !record.is_object()) throw UsageError(path + " is not JSON");
  if (record.value("format", "") != kRecordFormat)
    throw UsageError(path + " is not a scribe-run record (format is not \"" + std::string(kRecordFormat) + "\")");
  if (!record["cases"].is_array()) throw UsageError(path + ": cases is not an array");
  return record;
}

// The reasons a kind gives for a result, through the seam (none for a kind this build lacks).
json Reasons(const json& result) {
  json out = json::array();
  if (const Kind* k = FindKind(result.value("kind", "")))
    for (const std::string& r : k->Reasons(result, 3)) out.push_back(r);
  return out;
}

// Fills a case from a grade of its output.
void SetResult(json& c, json result) {
  c["score_total"] = result.value("score_total", 0.0);
  c["unsafe"] = result.value("unsafe", false);
  c["reasons"] = Reasons(result);
  c["result"] = std::move(result);
  c["error"] = nullptr;
}

void SetFailure(json& c, const std::string& message, const AgentOutcome* o) {
  c["score_total"] = 0.0;
  c["unsafe"] = false;
  c["reasons"] = json::array();
  c["result"] = nullptr;
  json error = {{"message", message}};
  if (o) {
    error["exit_status"] = o->exit_status >= 0 ? json(o->exit_status) : json(nullptr);
    error["signal"] = o->signal ? json(o->signal) : json(nullptr);
    error["timed_out"] = o->timed_out;
    error["stderr_tail"] = o->stderr_tail;
  }
  c["error"] = std::move(error);
}

// Progress on stderr: a bar redrawn in place on a terminal, one line per case otherwise.
class Progress {
 public:
  Progress(std::size_t total) : total_(total), tty_(isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {}

  void Done(const json& c) {
    ++done_;
    if (!c["error"].is_null()) ++failed_;
    if (c.value("unsafe", false)) ++unsafe_;
    if (tty_) {
      Draw(true);
      return;
    }
    char score[16];
    std::snprintf(score, sizeof score, "%.3f", c.value("score_total", 0.0));
    std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + c.value("trial", "") +
                       " run " + std::to_string(c.value("run", 0)) + ": " + score;
    if (c.value("unsafe", false)) line += " UNSAFE";
    if (c["error"].is_object()) line += " (agent failed: " + c["error"].value("message", "") + ")";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  void Tick() {
    if (tty_) Draw(false);
  }
  void Clear() {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }
  void Message(const std::string& text) {
    Clear();
    std::fprintf(stderr, "scribe-run: %s\n", text.c_str());
  }

 private:
  void Draw(bool force) {
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    long s = static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(now - start_).count());
    constexpr std::size_t kWidth = 30;
    std::size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
    std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '-');
    std::fprintf(stderr, "\r\033[K[%s] %zu/%zu cases  %zu failed  %zu unsafe  %ld:%02ld", bar.c_str(), done_, total_,
                 failed_, unsafe_, s / 60, s % 60);
  }
  std::size_t total_, done_ = 0, failed_ = 0, unsafe_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_{};
};

// The terminal's width when stdout is one, else 120 columns (CI logs are wide).
std::size_t TableWidth() {
  winsize w{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 60) return w.ws_col;
  return 120;
}

// Prints the record (table or JSON), then returns the exit code its thresholds give.
int Finish(const json& record, const Options& o) {
  if (o.json)
    std::cout << record.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  else
    std::cout << RenderTable(record, TableWidth());
  std::cout.flush();
  return record["thresholds"].value("passed", true) ? kExitOk : kExitThresholds;
}

std::vector<std::string> AgentEnvironment(const TrialInfo& t, int run) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view v = *e;
    if (v.starts_with("SCRIBE_TRIAL_ID=") || v.starts_with("SCRIBE_TRIAL_KIND=") || v.starts_with("SCRIBE_RUN="))
      continue;
    env.emplace_back(v);
  }
  env.push_back("SCRIBE_TRIAL_ID=" + t.id);
  env.push_back("SCRIBE_TRIAL_KIND=" + t.kind);
  env.push_back("SCRIBE_RUN=" + std::to_string(run));
  return env;
}

int RunBenchmark(const Options& o) {
  LocalGrader grader(o.corpus_dir, o.sealed_dir, o.live);
  std::vector<const TrialInfo*> selected = Select(grader, o);
  std::optional<Submitter> submitter;
  if (!o.submit_url.empty()) submitter.emplace(o.submit_url, o.vendor, o.key);

  json cases = json::array();
  std::vector<AgentJob> jobs;
  for (const TrialInfo* t : selected)
    for (int run = 1; run <= o.repeats; ++run) {
      cases.push_back({{"trial", t->id}, {"kind", t->kind}, {"run", run}, {"prompt_sha256", t->prompt_sha256}});
      jobs.push_back({o.agent, t->prompt, AgentEnvironment(*t, run), static_cast<std::int64_t>(o.timeout_s) * 1000});
    }

  json record = {{"format", kRecordFormat}, {"agent", o.agent}};
  const json versions = grader.Versions();
  for (const auto& [k, v] : versions.items()) record[k] = v;
  json ids = json::array();
  for (const TrialInfo* t : selected) ids.push_back(t->id);
  record["selection"] = {{"trials", o.trial_patterns.empty() ? json(nullptr) : json(o.trial_patterns)},
                         {"kinds", o.kinds.empty() ? json(nullptr) : json(o.kinds)},
                         {"ids", ids}};
  record["repeats"] = o.repeats;
  record["timeout_s"] = o.timeout_s;
  const std::string started_at = UtcNow(false);

  Progress progress(jobs.size());
  bool complete = RunAgents(
      jobs, o.jobs,
      [&](std::size_t i, AgentOutcome outcome) {
        json& c = cases[i];
        c["duration_ms"] = outcome.duration_ms;
        std::string failure = outcome.Failure(jobs[i].timeout_ms);
        if (failure.empty()) {
          c["output"] = outcome.output;
          SetResult(c, grader.Grade(c["trial"], outcome.output));
        } else {
          c["output"] = nullptr;
          SetFailure(c, failure, &outcome);
        }
        progress.Done(c);
      },
      [&] { progress.Tick(); }, &g_stop);
  progress.Clear();
  if (!complete) {
    progress.Message("interrupted: every agent was stopped; no record was written");
    return kExitInfrastructure;
  }

  bool submissions_ok = true;
  if (submitter) {
    std::size_t posted = 0;
    for (json& c : cases) {
      if (g_stop) break;
      if (!c["error"].is_null()) {
        c["submission"] = {{"skipped", "the agent failed: there is no output to submit"}};
        continue;
      }
      const std::string& out = c["output"].get_ref<const std::string&>();
      if (out.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
        c["submission"] = {{"skipped", "blank output: the server counts no run for it"}};
        continue;
      }
      c["submission"] = submitter->Post(c["trial"], out, grader.corpus_hash());
      int status = c["submission"].value("status", 0);
      if (status != 201) {
        submissions_ok = false;
        progress.Message("submitting " + c.value("trial", "") + " run " + std::to_string(c.value("run", 0)) + " to " +
                         submitter->url() + ": " + (status ? std::to_string(status) + " " : "") +
                         c["submission"]["error"].value("message", ""));
      } else {
        ++posted;
      }
    }
    if (g_stop) {
      progress.Message("interrupted while submitting; no record was written");
      return kExitInfrastructure;
    }
    progress.Message("submitted " + std::to_string(posted) + " of " + std::to_string(cases.size()) + " outputs to " +
                     submitter->url() + " as " + o.vendor);
  }

  record["execution"] = {{"started_at", started_at}, {"finished_at", UtcNow(false)}, {"jobs", o.jobs}};
  if (submitter) record["submit"] = {{"url", submitter->url()}, {"vendor", o.vendor}};
  record["cases"] = std::move(cases);
  record["summary"] = Summarize(record["cases"]);
  record["thresholds"] = Thresholds(record["summary"], o.min_score, o.fail_on_unsafe);
  std::string path = WriteRecord(o.out_dir, record);
  progress.Message("record written to " + path);
  int code = Finish(record, o);
  return submissions_ok ? code : kExitInfrastructure;
}

int Regrade(const Options& o) {
  json old = ReadRecord(o.regrade_path);
  LocalGrader grader(o.corpus_dir, o.sealed_dir, o.live);
  json record = old;
  std::size_t changed_prompts = 0;
  for (json& c : record["cases"]) {
    c.erase("submission");
    if (!c["error"].is_null() || !c["output"].is_string()) continue;  // a failed agent stays failed
    const TrialInfo* t = grader.Find(c.value("trial", ""));
    if (!t) {
      SetFailure(c, "trial '" + c.value("trial", "") + "' is not in the corpus " + o.corpus_dir, nullptr);
      continue;
    }
    if (t->prompt_sha256 != c.value("prompt_sha256", "")) ++changed_prompts;
    SetResult(c, grader.Grade(t->id, c["output"].get<std::string>()));
  }
  const json versions = grader.Versions();
  for (const auto& [k, v] : versions.items()) record[k] = v;
  record.erase("submit");
  record["regraded_from"] = {{"file", o.regrade_path},
                             {"grader_version", old.value("grader_version", "")},
                             {"methodology_versions", old.value("methodology_versions", json::object())},
                             {"corpus_hash", old.value("corpus_hash", "")}};
  record["execution"]["regraded_at"] = UtcNow(false);
  record["summary"] = Summarize(record["cases"]);
  record["thresholds"] = Thresholds(record["summary"], o.min_score, o.fail_on_unsafe);
  if (changed_prompts)
    std::fprintf(stderr,
                 "scribe-run: %zu case(s) were run on a prompt that has changed since (prompt_sha256 differs)\n",
                 changed_prompts);
  std::string path = WriteRecord(o.out_dir, record);
  std::fprintf(stderr, "scribe-run: record written to %s\n", path.c_str());
  return Finish(record, o);
}

int Report(const Options& o) {
  json record = ReadRecord(o.report_path);
  if (!record["summary"].is_object()) record["summary"] = Summarize(record["cases"]);
  if (o.min_score || o.fail_on_unsafe)
    record["thresholds"] = Thresholds(record["summary"], o.min_score, o.fail_on_unsafe);
  if (!record["thresholds"].is_object()) record["thresholds"] = Thresholds(record["summary"], std::nullopt, false);
  return Finish(record, o);
}

int Main(int argc, char** argv) {
  Options o;
  try {
    o = ParseOptions(argc, argv);
    if (o.corpus_dir.empty()) o.corpus_dir = DefaultCorpus();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "scribe-run: %s\n", e.what());
    return kExitUsage;
  }
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  try {
    if (!o.report_path.empty()) return Report(o);
    if (!o.regrade_path.empty()) return Regrade(o);
    if (o.list || !o.print_prompt.empty()) {
      LocalGrader grader(o.corpus_dir, o.sealed_dir, false);
      if (!o.print_prompt.empty()) {
        const TrialInfo* t = grader.Find(o.print_prompt);
        if (!t) throw UsageError("unknown trial '" + o.print_prompt + "' (scribe-run --list shows them)");
        std::cout << t->prompt;
        return kExitOk;
      }
      for (const TrialInfo* t : Select(grader, o)) std::cout << t->id << "\t" << t->kind << "\t" << t->title << "\n";
      return kExitOk;
    }
    return RunBenchmark(o);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "scribe-run: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scribe-run: %s\n", e.what());
    return kExitInfrastructure;
  }
}

}  // namespace
}  // namespace scribe::run

int main(int argc, char** argv) { return scribe::run::Main(argc, argv); }
