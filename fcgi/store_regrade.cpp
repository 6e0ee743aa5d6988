// store_regrade.cpp — RegradeOnStore (see store_regrade.h).
#include "store_regrade.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "committer.h"
#include "database.h"
#include "functions.h"

namespace scribe::http {

using nlohmann::json;

namespace {

// The store's version of scribe_regrade()'s grade row (kGradeInsertReadSql, which reads the
// columns from the result in SQL): named parameters, as the store takes them.
const std::string& GradeInsertSql() {
  static const std::string sql = [] {
    std::string s = sql::kGradeInsertReadSql;
    auto put = [&s](const std::string& from, const std::string& to) {
      std::size_t at = s.find(from);
      if (at == std::string::npos || s.find(from, at + 1) != std::string::npos)
        throw std::logic_error("kGradeInsertReadSql has not exactly one " + from);
      s.replace(at, from.size(), to);
    };
    put("?1", ":id");
    put("?2", ":result");
    return s;
  }();
  return sql;
}

// The submissions without a grade of these versions, after `after` in id order.
constexpr const char* kPageSql =
    "SELECT s.id, s.script_id, s.scribe_output FROM submissions s WHERE s.id > :after AND NOT EXISTS ("
    "SELECT 1 FROM grades g WHERE g.submission_id = s.id AND g.grader_version = :grader AND g.corpus_hash = :corpus) "
    "ORDER BY s.id LIMIT :n";

std::string Progress(std::int64_t graded, std::int64_t batches) {
  return std::to_string(graded) + " grades in " + std::to_string(batches) +
         " transactions are stored; running the regrade again goes on from there";
}

// One read on the store; throws with `what` and the store's message when it cannot be done.
json Read(StoreClient& store, const StoreStatement& statement, const std::string& what) {
  StoreAnswer a = store.Query(statement);
  if (a.kind != StoreAnswer::kOk || !a.body["rows"].is_array())
    throw std::runtime_error("reading " + what + " from the store: " + (a.message.empty() ? "no rows" : a.message));
  return std::move(a.body["rows"]);
}

struct Todo {
  std::string id, script_id, note;
  std::string result;  // empty: the trial is not in this grader's corpus
};

}  // namespace

GradeVersions GraderVersions(Database& db) {
  Query h = db.Run("health");
  if (!h.Step()) throw std::runtime_error("the grader's database answered no health row");
  json health = json::parse(h.Text(0));
  auto text = [&health](const char* key) {
    return health[key].is_string() ? health[key].get<std::string>() : std::string();
  };
  return {text("grader_version"), text("corpus_hash")};
}

GradeVersions StoreVersions(StoreClient& store, std::int64_t deadline_ms) {
  StoreAnswer a = store.Query({"SELECT grader_version, corpus_hash FROM current_versions"}, deadline_ms);
  if (a.kind != StoreAnswer::kOk || !a.body["rows"].is_array())
    throw std::runtime_error("reading its current versions from the store: " +
                             (a.message.empty() ? std::string("no rows") : a.message));
  const json& rows = a.body["rows"];
  auto text = [&rows](std::size_t column) {  // "" for no row or NULL
    return !rows.empty() && rows[0].size() > column && rows[0][column].is_string() ? rows[0][column].get<std::string>()
                                                                                  : std::string();
  };
  return {text(0), text(1)};
}

std::string CompareVersions(const GradeVersions& grader, const GradeVersions& store) {
  if (store.corpus_hash.empty())
    return "warning: no corpus is published on the store: submits answer 503 corpus_not_published until this "
           "grader's corpus " + grader.corpus_hash + " is (cluster/publish)";
  if (grader.corpus_hash != store.corpus_hash)
    return "warning: this grader's corpus " + grader.corpus_hash + " is not the store's current corpus (" +
           store.corpus_hash + "): what it stores is not counted in the standings (and its submits answer 503 "
           "corpus_not_published if the store has never had its corpus); start it with the store's corpus, or "
           "publish this one (cluster/publish)";
  if (grader.grader_version != store.grader_version)
    return "warning: this grader is version " + grader.grader_version + " and the store's standings count grades of " +
           store.grader_version + " (its voters' extension): what this grader stores is counted once the voters run "
           "its build (docs/scale-out.md, \"Upgrading graders one at a time\")";
  return "the store counts this grader's versions (grader " + grader.grader_version + ", corpus " +
         grader.corpus_hash + ")";
}

json RegradeOnStore(const std::string& db_path, StoreClient& store, const RegradeOptions& options) {
  if (options.batch < 1) throw std::invalid_argument("the regrade's batch size must be at least 1");
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const int threads = options.threads > 0 ? options.threads : static_cast<int>(std::min(cores, 8u));
  // Each grading thread grades through its own connections to the grader's file, as a request
  // thread of a worker does (the trials are prepared once per process).
  std::vector<std::unique_ptr<Database>> dbs;
  for (int k = 0; k < threads; ++k) dbs.push_back(std::make_unique<Database>(db_path, "full", /*prepare_all=*/k == 0));

  const GradeVersions mine = GraderVersions(*dbs[0]);
  if (mine.corpus_hash.empty()) throw std::runtime_error("no corpus is loaded in " + db_path + ": start with --corpus DIR");
  const GradeVersions counted = StoreVersions(store);
  const std::string& grader_version = mine.grader_version;
  const std::string& corpus_hash = mine.corpus_hash;
  if (counted.corpus_hash != corpus_hash)
    throw std::runtime_error("this grader's corpus " + corpus_hash + " is not the store's current corpus (" +
                             (counted.corpus_hash.empty() ? "none is published" : counted.corpus_hash) +
                             "): publish it first (cluster/publish); nothing was graded");

  std::int64_t graded = 0, unknown = 0, batches = 0;
  // A page's grades are written by a second client on its own thread while the next page is read
  // and graded; one write is in flight at a time, and it is settled (its outcome counted, or
  // thrown) before the next is sent and before any error is reported, so the progress a message
  // gives is what is stored.
  StoreClient writer(store.urls());
  struct Write {
    std::future<StoreAnswer> answer;
    std::size_t rows = 0;
    std::string first_id;
  } pending;
  auto settle = [&] {
    if (!pending.answer.valid()) return;
    StoreAnswer a = pending.answer.get();
    if (a.kind != StoreAnswer::kOk)
      throw std::runtime_error("the store did not confirm " + std::to_string(pending.rows) + " grades from " +
                               pending.first_id + " on: " + a.message + " (" + Progress(graded, batches) + ")");
    graded += static_cast<std::int64_t>(pending.rows);
    ++batches;
  };
  std::string after;  // ids are compared as text, as the store orders them
  for (;;) {
    json rows;
    try {
      rows = Read(store, {kPageSql, {{"after", after}, {"grader", grader_version}, {"corpus", corpus_hash}, {"n", options.batch}}},
                  "the submissions to grade");
    } catch (const std::runtime_error& e) {
      settle();
      throw std::runtime_error(std::string(e.what()) + " (" + Progress(graded, batches) + ")");
    }
    if (rows.empty()) break;
    std::vector<Todo> todo;
    for (const json& r : rows) {
      if (r.size() != 3 || !r[0].is_string() || !r[1].is_string() || !r[2].is_string())
        throw std::runtime_error("the store answered a submission row that is not (id, script_id, scribe_output)");
      todo.push_back({r[0].get<std::string>(), r[1].get<std::string>(), r[2].get<std::string>(), ""});
    }
    after = todo.back().id;
    // Graded on `threads` threads, each taking the next note; the rows are written in id order.
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(dbs.size());
    auto work = [&](std::size_t k) {
      try {
        for (std::size_t i; (i = next.fetch_add(1)) < todo.size();) {
          Query q = dbs[k]->Run("grade");
          q.Bind(":script_id", todo[i].script_id).Bind(":scribe_output", todo[i].note);
          if (q.Step() && !q.IsNull(0)) todo[i].result = q.Text(0);
        }
      } catch (...) {
        errors[k] = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    const std::size_t used = std::min(dbs.size(), todo.size());
    for (std::size_t k = 1; k < used; ++k) pool.emplace_back(work, k);
    work(0);
    for (std::thread& t : pool) t.join();
    for (std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);

    std::vector<StoreStatement> inserts;
    for (const Todo& t : todo) {
      if (t.result.empty()) {
        ++unknown;
        continue;
      }
      inserts.push_back({GradeInsertSql(), {{"id", t.id}, {"result", t.result}}});
    }
    if (inserts.empty()) continue;
    settle();
    pending.rows = inserts.size();
    pending.first_id = inserts.front().params["id"].get<std::string>();
    pending.answer = std::async(std::launch::async, [&writer, statements = std::move(inserts)] {
      return writer.Exec(statements);
    });
  }
  settle();
  // Nothing (more) to grade: the standings brought to what is stored, as scribe_regrade() does.
  if (StoreAnswer a = store.Exec(StoreRefreshStatements()); a.kind != StoreAnswer::kOk)
    throw std::runtime_error("the store did not confirm the standings refresh: " + a.message + " (" +
                             Progress(graded, batches) + ")");
  json total = Read(store, {"SELECT count(*) FROM submissions"}, "the number of submissions");
  const std::int64_t submissions = total.empty() ? 0 : total[0][0].get<std::int64_t>();
  return json{{"submissions", submissions},
              {"graded", graded},
              {"already_current", submissions - graded - unknown},
              {"unknown_trial", unknown},
              {"batches", batches},
              {"grader_version", grader_version},
              {"corpus_hash", corpus_hash},
              {"store_grader_version", counted.grader_version}};
}

}  // namespace scribe::http
