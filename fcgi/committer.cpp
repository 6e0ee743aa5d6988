// committer.cpp — the writer thread of committer.h.
#include "committer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "compact_json.h"
#include "hash.h"
#include "http.h"
#include "embedded.h"
#include "sqlite_util.h"
#include "text.h"
#include "vendor.h"

namespace scribe::http {

using scribe::sql::SqlError;

namespace {

// The wall clock in milliseconds since the Unix epoch: a submission id's time and its created_at.
std::uint64_t UnixMillisNow() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000 + static_cast<std::uint64_t>(now.tv_nsec) / 1000000;
}

}  // namespace

std::string NewSubmissionId(std::uint64_t ms) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%011llx%05x", static_cast<unsigned long long>(ms & 0xfffffffffffULL),
                static_cast<unsigned>(std::stoul(RandomHex(3), nullptr, 16) >> 4));
  return buffer;
}

std::string NewSubmissionId() { return NewSubmissionId(UnixMillisNow()); }

std::string CreatedAtNow() {
  const std::uint64_t ms = UnixMillisNow();
  const time_t seconds = static_cast<time_t>(ms / 1000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms % 1000));
  return buffer;
}

namespace {

// The members of a grade a submission's row copies (submit.sql's parameters of the same names).
constexpr std::array<std::string_view, 9> kSubmitColumns = {"script_id",   "kind",         "corpus_hash",
                                                            "grader_version", "score_total", "score_drug",
                                                            "score_mental",  "score_fabrication", "unsafe"};
constexpr std::array<const char*, 9> kSubmitParameters = {":script_id",   ":kind",         ":corpus_hash",
                                                          ":grader_version", ":score_total", ":score_drug",
                                                          ":score_mental",  ":score_fabrication", ":unsafe"};
static_assert([] {
  for (size_t k = 0; k < kSubmitColumns.size(); ++k)
    if (std::string_view(kSubmitParameters[k]).substr(1) != kSubmitColumns[k]) return false;
  return true;
}(), "each parameter is its member's name after a colon");

// A string as SQLite's JSON writer quotes a text value: '"' and '\\' escaped, the control
// characters \b \t \n \f \r by name and the others as \u00XX, every other byte as it is.
void AppendSqliteJsonString(std::string& out, std::string_view s) {
  static const char kNamed[32] = {0, 0, 0, 0, 0, 0, 0, 0, 'b', 't', 'n', 0, 'f', 'r', 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0,   0,   0,   0, 0,   0,   0, 0};
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 && kNamed[c]) {
      out += '\\';
      out += kNamed[c];
    } else if (c < 0x20) {
      out += "\\u00";
      out += static_cast<char>('0' + (c >> 4));
      out += "0123456789abcdef"[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

StoreOutcome Failed(int code, std::string message) {
  StoreOutcome o;
  o.status = StoreOutcome::kFailed;
  o.code = code;
  o.message = std::move(message);
  return o;
}

StoreOutcome Unknown(std::string id, std::string message) {
  StoreOutcome o;
  o.status = StoreOutcome::kUnknown;
  o.id = std::move(id);
  o.message = std::move(message);
  return o;
}

// Local mode: committed under `id`, but the syncer could not make it durable (committer.h).
StoreOutcome NotDurable(std::string id, const std::string& why) {
  return Unknown(std::move(id), "committed, but not known to be on disk: " + why);
}

}  // namespace

const std::vector<StoreStatement>& StoreRefreshStatements() {
  static const std::vector<StoreStatement> list = [] {
    std::string text;
    for (std::string_view line : Split(embedded_file("sql/store/refresh_standings.sql"), '\n'))
      if (!Trim(line).starts_with("--")) (text += line) += '\n';
    std::vector<StoreStatement> out;
    for (std::string_view part : Split(text, ';'))
      if (!Trim(part).empty()) out.push_back(StoreStatement{std::string(Trim(part))});
    if (out.empty()) throw std::logic_error("sql/store/refresh_standings.sql is not embedded");
    return out;
  }();
  return list;
}

namespace {

StoreOutcome Abandoned(std::string why) {
  StoreOutcome o;
  o.status = StoreOutcome::kAbandoned;
  o.why = std::move(why);
  return o;
}

}  // namespace

std::optional<std::string> StoredResultText(std::string_view grade, std::string_view id, std::string_view vendor,
                                            std::string_view created_at) {
  std::vector<JsonMember> members;
  if (!IsCompactJson(grade, &members)) return std::nullopt;
  return StoredResultText(grade, members, id, vendor, created_at);
}

std::optional<std::string> StoredResultText(std::string_view grade, std::span<const JsonMember> members,
                                            std::string_view id, std::string_view vendor, std::string_view created_at) {
  if (grade.size() < 2 || grade.front() != '{') return std::nullopt;
  for (const auto& [key, value] : members)  // json_set would replace it in place; an escaped name may be one
    if (key == "id" || key == "vendor" || key == "created_at" || key.find('\\') != std::string_view::npos)
      return std::nullopt;
  std::string out;
  out.reserve(grade.size() + vendor.size() + 96);
  out.append(grade.data(), grade.size() - 1);
  if (grade.size() > 2) out += ',';
  out += "\"id\":";
  AppendSqliteJsonString(out, id);
  out += ",\"vendor\":";
  AppendSqliteJsonString(out, vendor);
  out += ",\"created_at\":";
  AppendSqliteJsonString(out, created_at);
  out += '}';
  return out;
}

Committer::Committer(const std::string& db_path, const std::string& synchronous, std::size_t max_batch,
                     const std::vector<std::string>& store_urls)
    : db_(db_path, synchronous, /*prepare_all=*/false, store_urls),
      checkpointer_(store_urls.empty() ? std::make_unique<Checkpointer>(db_path, synchronous) : nullptr),
      max_batch_(max_batch < 1 ? 1 : max_batch) {
  if (store_urls.empty() && synchronous == "full") {
    wal_path_ = db_.WalPath();
    if (!wal_path_.empty()) db_.ExecWrite("PRAGMA synchronous = NORMAL");  // the syncer makes FULL's fsync
  }
  writer_ = std::thread([this] { Run(); });
  if (!wal_path_.empty()) syncer_ = std::thread([this] { Sync(); });
}

Committer::~Committer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  queued_.notify_all();
  writer_.join();
  if (syncer_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_sync_ = true;
    }
    unsynced_cv_.notify_all();
    syncer_.join();
  }
  if (wal_fd_ >= 0) close(wal_fd_);
  for (int fd : old_wal_fds_) close(fd);
}

StoreOutcome Committer::Store(PendingSubmission s) {
  const auto start = std::chrono::steady_clock::now();
  Item item;
  item.submission = std::move(s);
  const std::string& grade = item.submission.result;
  item.compact = !grade.empty() && grade.front() == '{' && IsCompactJson(grade, &item.members);
  item.vendor_key = VendorKey(item.submission.vendor);
  item.note_sha256 = Sha256Hex(item.submission.scribe_output);
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_) return Failed(SQLITE_ABORT, "the writer is stopping");
  queue_.push_back(&item);
  queued_.notify_one();
  finished_.wait(lock, [&] { return item.done; });
  if (item.outcome.status == StoreOutcome::kStored)
    ack_waits_.Add(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return std::move(item.outcome);
}

std::uint64_t Committer::Commits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return commits_;
}

std::uint64_t Committer::Stored() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stored_;
}

MillisHistogram Committer::CommitTimes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return commit_times_;
}

MillisHistogram Committer::SyncTimes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sync_times_;
}

MillisHistogram Committer::AckWaits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ack_waits_;
}

MillisHistogram Committer::DiskWaits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return disk_waits_;
}

void MillisHistogram::Add(double ms) {
  int b = 0;
  for (double bound = 1; b + 1 < kBuckets && ms > bound; bound *= 2) ++b;
  ++buckets_[b];
  ++count_;
  slowest_ = std::max(slowest_, ms);
}

std::uint64_t MillisHistogram::Over(double ms) const {
  // Bucket b > 0 holds the times in (2^(b-1), 2^b] (the last: past 2^(kBuckets-2)); bucket 0
  // those at most 1 ms, none of them longer than a bound >= 0.
  std::uint64_t over = ms < 0 ? buckets_[0] : 0;
  double lower = 1;
  for (int b = 1; b < kBuckets; ++b, lower *= 2)
    if (lower >= ms) over += buckets_[b];
  return over;
}

double MillisHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  const auto want = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  double bound = 1;
  for (int b = 0; b + 1 < kBuckets; ++b, bound *= 2)
    if ((seen += buckets_[b]) >= want) return std::min(bound, slowest_);
  return slowest_;
}

void Committer::Run() {
  db_.DeferCheckpoints();
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    queued_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to store
    std::deque<Item*> batch;
    while (!queue_.empty() && batch.size() < max_batch_) {
      batch.push_back(queue_.front());
      queue_.pop_front();
    }
    lock.unlock();
    WriteBatch(batch);
    // Committed: on disk once the syncer's next fdatasync of the WAL returns (committer.h).
    int fd = -1;
    std::string error;
    const bool committed = std::any_of(batch.begin(), batch.end(),
                                       [](const Item* i) { return i->outcome.status == StoreOutcome::kStored; });
    if (committed && !wal_path_.empty() && (fd = WalFd(error)) < 0)
      std::fprintf(stderr, "scribe-fcgi[%d]: %s\n", static_cast<int>(getpid()), error.c_str());
    const auto committed_at = std::chrono::steady_clock::now();
    lock.lock();
    bool to_sync = false;
    for (Item* item : batch) {
      const bool stored = item->outcome.status == StoreOutcome::kStored;
      if (stored) ++stored_;
      if (stored && !wal_path_.empty()) {
        if (fd >= 0) {
          item->committed = committed_at;
          unsynced_.emplace_back(item, fd);
          to_sync = true;
          continue;
        }
        item->outcome = NotDurable(item->outcome.id, error);
      }
      item->done = true;
    }
    finished_.notify_all();
    if (to_sync) unsynced_cv_.notify_one();
    // The batch is answered. The checkpointer copies the WAL beside the writer from SQLite's
    // usual mark on; at kCheckpointPages the writer finishes the copy itself (what was appended
    // since), so that the next transaction starts the WAL over.
    if (checkpointer_ && db_.WalFrames() >= Database::kCheckpointPages) {
      lock.unlock();
      db_.CheckpointIfDue();  // busy while the checkpointer runs: then after the next commit
      lock.lock();
    } else if (checkpointer_ && db_.WalFrames() >= Database::kCheckpointerPages) {
      checkpointer_->Poke();
    }
  }
}

void Committer::Sync() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    unsynced_cv_.wait(lock, [&] { return stop_sync_ || !unsynced_.empty(); });
    if (unsynced_.empty()) return;  // stopping, and every committed batch answered
    std::deque<std::pair<Item*, int>> batch;
    batch.swap(unsynced_);
    lock.unlock();
    // One fdatasync per descriptor (two only when the WAL was replaced between commits), begun
    // after every COMMIT of the batch returned: it covers their frames.
    std::vector<std::pair<int, std::string>> synced;
    const auto start = std::chrono::steady_clock::now();
    for (const auto& entry : batch) {
      const int fd = entry.second;  // a plain name: clang 14 cannot capture a structured binding
      if (std::any_of(synced.begin(), synced.end(), [fd](const auto& s) { return s.first == fd; })) continue;
      std::string failure;
      if (fdatasync(fd) != 0) failure = "fdatasync of " + wal_path_ + " failed: " + std::strerror(errno);
      synced.emplace_back(fd, std::move(failure));
    }
    const auto synced_at = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(synced_at - start).count();
    lock.lock();
    sync_times_.Add(ms);
    for (auto& entry : batch) {
      Item* item = entry.first;
      const int fd = entry.second;
      const std::string& failure =
          std::find_if(synced.begin(), synced.end(), [fd](const auto& s) { return s.first == fd; })->second;
      if (!failure.empty()) {
        std::fprintf(stderr, "scribe-fcgi[%d]: submission %s committed, not known to be on disk: %s\n",
                     static_cast<int>(getpid()), item->outcome.id.c_str(), failure.c_str());
        item->outcome = NotDurable(item->outcome.id, failure);
      } else {
        disk_waits_.Add(std::chrono::duration<double, std::milli>(synced_at - item->committed).count());
      }
      item->done = true;
    }
    finished_.notify_all();
  }
}

int Committer::WalFd(std::string& error) {
  struct stat now {};
  if (stat(wal_path_.c_str(), &now) != 0) {
    error = "the WAL " + wal_path_ + " cannot be found: " + std::strerror(errno);
    return -1;
  }
  if (wal_fd_ >= 0 && now.st_dev == wal_dev_ && now.st_ino == wal_ino_) return wal_fd_;
  const int fd = open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat opened {};
  if (fd < 0 || fstat(fd, &opened) != 0) {
    error = "the WAL " + wal_path_ + " cannot be opened: " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return -1;
  }
  if (wal_fd_ >= 0) old_wal_fds_.push_back(wal_fd_);  // the syncer may still hold it
  wal_fd_ = fd;
  wal_dev_ = opened.st_dev;
  wal_ino_ = opened.st_ino;
  return fd;
}

// One submission inside the batch's transaction, in its own savepoint. A primary-key conflict
// on the random id (2^-64 per pair) draws another id once; any other failure of this insert
// alone fails this submission only. Storage errors (disk full, I/O) are thrown: the whole
// transaction is lost with them.
void Committer::StoreOne(Item& item) {
  StoreOutcome& out = item.outcome;
  if (item.submission.abandoned) {
    if (std::string why = item.submission.abandoned(); !why.empty()) {
      out = Abandoned(std::move(why));
      return;
    }
  }
  for (int attempt = 0;; ++attempt) {
    std::string id = NewSubmissionId(), created_at = CreatedAtNow();
    // The stored result and the row's columns made from the grade's text here (its members were
    // found on the request thread), not by json_set and json_extract parsing it in SQL.
    std::optional<std::string> stored_result;
    std::optional<std::vector<sql::SqlValue>> columns;
    if (item.compact) {
      stored_result = StoredResultText(item.submission.result, item.members, id, item.submission.vendor, created_at);
      columns = sql::ResultColumns(item.members, kSubmitColumns);
    }
    db_.ExecWrite("SAVEPOINT submission");
    try {
      Query insert = db_.Run("submit");
      insert.Bind(":id", id).Bind(":vendor", item.submission.vendor).Bind(":created_at", created_at);
      insert.Bind(":scribe_output", item.submission.scribe_output).Bind(":result", item.submission.result);
      insert.Bind(":vendor_key", item.vendor_key).Bind(":note_sha256", item.note_sha256);
      if (stored_result) insert.Bind(":stored_result", *stored_result);
      if (columns) {
        insert.Bind(":columns_given", sql::SqlValue{sql::SqlValue::kInteger, {}, 1});
        for (size_t k = 0; k < kSubmitColumns.size(); ++k) insert.Bind(kSubmitParameters[k], (*columns)[k]);
      }
      if (!insert.Step()) throw std::logic_error("submit.sql returned no row");
      std::string stored = insert.Text(0);
      created_at = insert.Text(1);
      insert.Finish();
      db_.ExecWrite("RELEASE submission");
      out.status = StoreOutcome::kStored;
      out.id = std::move(id);
      out.stored = std::move(stored);
      out.created_at = std::move(created_at);
      return;
    } catch (const SqlError& e) {
      if (db_.InTransaction()) {
        db_.ExecWrite("ROLLBACK TO submission");
        db_.ExecWrite("RELEASE submission");
      }
      if (IsStorageError(e.code())) throw;
      if (e.code() == SQLITE_CONSTRAINT_PRIMARYKEY && attempt == 0) continue;
      out = Failed(e.code(), e.what());
      return;
    }
  }
}

void Committer::WriteBatch(std::deque<Item*>& batch) {
  if (db_.store()) return WriteBatchOnStore(batch);
  try {
    WriteTransaction tx(db_);  // BEGIN IMMEDIATE: waits for other processes' writers
    bool any = false;
    for (Item* item : batch) {
      try {
        StoreOne(*item);
      } catch (const std::logic_error& e) {
        item->outcome = Failed(SQLITE_INTERNAL, e.what());
      }
      any = any || item->outcome.status == StoreOutcome::kStored;
    }
    if (any) {
      Query refresh = db_.Run("refresh_standings");  // every vendor of the batch, in the same commit
      refresh.Step();
      refresh.Finish();
    }
    const auto commit_start = std::chrono::steady_clock::now();
    tx.Commit();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - commit_start).count();
    std::lock_guard<std::mutex> lock(mu_);
    ++commits_;
    commit_times_.Add(ms);
  } catch (const SqlError& e) {
    // Nothing of this transaction was stored: every submission it held fails with the cause.
    for (Item* item : batch) {
      if (item->outcome.status == StoreOutcome::kAbandoned) continue;
      item->outcome = Failed(e.code(), e.what());
    }
  } catch (const std::exception& e) {
    for (Item* item : batch) {
      if (item->outcome.status == StoreOutcome::kAbandoned) continue;
      item->outcome = Failed(SQLITE_INTERNAL, e.what());
    }
  }
}

}  // namespace scribe::http

namespace scribe::http {

void Committer::PrepareForStore(Item& item) {
  item.id = NewSubmissionId();
  item.created_at = CreatedAtNow();
  std::optional<std::vector<sql::SqlValue>> columns;
  item.stored_result.reset();
  if (item.compact) {
    item.stored_result = StoredResultText(item.submission.result, item.members, item.id, item.submission.vendor, item.created_at);
    columns = sql::ResultColumns(item.members, kSubmitColumns);
  }
  StoreStatement& st = item.insert = db_.StoreWrite("submit");
  st.params["id"] = item.id;
  st.params["vendor"] = item.submission.vendor;
  st.params["scribe_output"] = item.submission.scribe_output;
  st.params["result"] = item.submission.result;
  st.params["created_at"] = item.created_at;
  st.params["vendor_key"] = item.vendor_key;
  st.params["note_sha256"] = item.note_sha256;
  if (item.stored_result) st.params["stored_result"] = *item.stored_result;
  if (columns) {
    st.params["columns_given"] = 1;
    for (size_t k = 0; k < kSubmitColumns.size(); ++k) {
      const sql::SqlValue& v = (*columns)[k];
      nlohmann::json& p = st.params[std::string(kSubmitColumns[k])];
      if (v.type == sql::SqlValue::kText) p = std::string(v.text);
      else if (v.type == sql::SqlValue::kInteger) p = v.integer;
    }
  }
}

void Committer::StoredOnStore(Item& item) {
  StoreOutcome& out = item.outcome;
  if (!item.stored_result) {  // made by json_set on the store: read it back
    StoreAnswer a = db_.store()->Query({"SELECT result FROM submissions WHERE id = :id", {{"id", item.id}}});
    if (a.kind != StoreAnswer::kOk || a.body["rows"].empty()) {
      out = Unknown(item.id, "stored, but its stored result could not be read back: " + a.message);
      return;
    }
    item.stored_result = a.body["rows"][0][0].get<std::string>();
  }
  out.status = StoreOutcome::kStored;
  out.id = item.id;
  out.created_at = item.created_at;
  out.stored = std::move(*item.stored_result);
}

std::vector<bool> Committer::HeldOnStore(const std::vector<Item*>& items, std::string& error) {
  nlohmann::json ids = nlohmann::json::array();
  for (const Item* item : items) ids.push_back(item->id);
  StoreAnswer a = db_.store()->Query({"SELECT id, note_sha256 FROM submissions WHERE id IN (SELECT value FROM json_each(:ids))",
                                      {{"ids", ids.dump()}}});
  std::vector<bool> held(items.size(), false);
  if (a.kind != StoreAnswer::kOk) {
    error = a.message;
    return held;
  }
  for (const auto& row : a.body["rows"])
    for (size_t k = 0; k < items.size(); ++k)
      if (row[0] == items[k]->id && row[1] == items[k]->note_sha256) held[k] = true;
  return held;
}

void Committer::WriteBatchOnStore(std::deque<Item*>& batch) {
  std::vector<Item*> live;
  for (Item* item : batch) {
    if (item->submission.abandoned) {
      if (std::string why = item->submission.abandoned(); !why.empty()) {
        item->outcome = Abandoned(std::move(why));
        continue;
      }
    }
    try {
      PrepareForStore(*item);
      live.push_back(item);
    } catch (const std::exception& e) {
      item->outcome = Failed(SQLITE_INTERNAL, e.what());
    }
  }
  if (live.empty()) return;
  std::vector<StoreStatement> statements;
  statements.reserve(live.size() + StoreRefreshStatements().size());
  for (Item* item : live) statements.push_back(item->insert);
  statements.insert(statements.end(), StoreRefreshStatements().begin(), StoreRefreshStatements().end());
  StoreAnswer a = db_.store()->Exec(statements);
  if (a.kind == StoreAnswer::kConstraint && a.message.find("submissions.id") != std::string::npos) {
    // The batch met rows with its own ids: an earlier attempt, whose answer was lost, committed
    // it (the transaction is whole or nothing). Otherwise an id was drawn twice: one by one.
    std::string error;
    std::vector<bool> held = HeldOnStore(live, error);
    if (std::all_of(held.begin(), held.end(), [](bool h) { return h; })) a.kind = StoreAnswer::kOk;
  }
  switch (a.kind) {
    case StoreAnswer::kOk:
      for (Item* item : live) StoredOnStore(*item);
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++commits_;
      }
      return;
    case StoreAnswer::kBusy:
      for (Item* item : live) item->outcome = Failed(SQLITE_BUSY, a.message);
      return;
    case StoreAnswer::kUnavailable:
      for (Item* item : live) item->outcome = Unknown(item->id, a.message);
      return;
    case StoreAnswer::kConstraint:
    case StoreAnswer::kRejected:
      for (Item* item : live) StoreOneOnStore(*item);
      return;
  }
}

void Committer::StoreOneOnStore(Item& item) {
  for (int attempt = 0;; ++attempt) {
    std::vector<StoreStatement> statements{item.insert};
    statements.insert(statements.end(), StoreRefreshStatements().begin(), StoreRefreshStatements().end());
    StoreAnswer a = db_.store()->Exec(statements);
    if (a.kind == StoreAnswer::kConstraint && a.message.find("submissions.id") != std::string::npos) {
      std::string error;
      if (HeldOnStore({&item}, error)[0]) a.kind = StoreAnswer::kOk;  // stored by a lost attempt
      else if (error.empty() && attempt == 0) {  // an id drawn twice (2^-64 per pair): another one
        PrepareForStore(item);
        continue;
      }
    }
    switch (a.kind) {
      case StoreAnswer::kOk:
        StoredOnStore(item);
        return;
      case StoreAnswer::kBusy:
        item.outcome = Failed(SQLITE_BUSY, a.message);
        return;
      case StoreAnswer::kUnavailable:
        item.outcome = Unknown(item.id, a.message);
        return;
      case StoreAnswer::kConstraint:
        // a foreign key: the row names a corpus version the store does not have (this grader's
        // corpus was not published there first)
        item.outcome = Failed(a.message.find("FOREIGN KEY") != std::string::npos ? SQLITE_CONSTRAINT_FOREIGNKEY
                                                                                  : SQLITE_CONSTRAINT,
                              a.message);
        return;
      case StoreAnswer::kRejected:
        item.outcome = Failed(SQLITE_ERROR, a.message);
        return;
    }
  }
}

}  // namespace scribe::http
