// committer.h — group commit: one writer per worker process stores the graded submissions of all
// its request threads, a batch per transaction, and acknowledges each only after its COMMIT.
//
// With synchronous = FULL every COMMIT waits for the disk (one fsync of the WAL, a few
// milliseconds here); one transaction per submission made that wait the ceiling on submits per
// second, whatever the grader's speed. A request thread grades on its own connections, then
// hands the graded result to Store() and blocks. The writer thread takes everything queued
// (up to max_batch), inserts each in its own SAVEPOINT (a failure of one does not undo the
// others), refreshes the standings once for the batch, COMMITs, and only then wakes every
// waiter with its outcome. While one batch waits for the disk the next one queues up, so the
// batch grows with the load and the fsync is shared by all of it. Durability is unchanged:
// nothing is acknowledged before the COMMIT that holds it has returned SQLITE_OK.
//
// With synchronous = FULL on a WAL database the fsync leaves the writer: its connection commits
// with synchronous = NORMAL (the frames written, no fsync) and a syncer thread then fdatasyncs
// the WAL file, the one sync FULL would have made inside COMMIT, before it wakes the batch's
// waiters. The writer meanwhile inserts the next batch, so the disk's wait and the SQL overlap
// (one fdatasync covers every batch committed before it began). What a submission's answer
// promises is unchanged: 201 only once its frames are on disk. What differs is that readers may
// see a batch a few milliseconds before its fsync returns; a power loss in that window loses
// submissions that no client was told were stored (and that a reader may have seen). A failed
// fdatasync answers kUnknown with the id: committed, but not known to be on disk.
//
//   Committer committer(db_path, "full");
//   StoreOutcome out = committer.Store({vendor, note, graded_result, abandoned});
//   if (out.status == StoreOutcome::kStored) … 201 with out.id and the public view of out.stored (api.cpp)
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "compact_json.h"
#include "database.h"

namespace scribe::http {

// A graded submission waiting to be stored.
struct PendingSubmission {
  std::string vendor;
  std::string scribe_output;
  std::string result;  // grade.sql's JSON
  // Why it must no longer be stored ("the client has gone"), or "" when it may; called on the
  // writer thread just before the insert. May be empty.
  std::function<std::string()> abandoned;
};

struct StoreOutcome {
  // kUnknown (cluster mode): no store node confirmed or denied the commit before the deadline;
  // the submission may be stored under `id`.
  enum Status { kStored, kAbandoned, kFailed, kUnknown };
  Status status = kFailed;
  std::string id;       // kStored, kUnknown: the submission id the writer drew
  std::string stored;   // kStored: submit.sql's answer (the stored result; PublicResultText shows it)
  std::string why;      // kAbandoned: abandoned()'s reason
  int code = 0;         // kFailed: SQLite extended result code
  std::string message;  // kFailed: SQLite's message; kUnknown: what the store client saw
  std::string created_at;  // kStored: the row's created_at, as in the stored result
};

// A submission id, 16 lower-case hex digits: the milliseconds since the Unix epoch (11 digits,
// 44 bits: until the year 2527) then 20 bits from the kernel's CSPRNG (5 digits). Ids drawn
// later sort later, so a batch's rows land at the right-hand edge of the three indexes keyed by
// the id (submissions' and grades' primary keys, grades_version) instead of on a random leaf
// page of each: 44 KB sent toward the disk per stored submission instead of 64-70 KB (WAL and
// checkpoint; written_kb/req of tests/bench/wrk/run submit), and no more as the database grows. Ids are public (a vendor's
// page lists them) and the time they carry is public as the row's created_at; the random part
// keeps two submissions of the same millisecond apart (a collision draws another once).
std::string NewSubmissionId();
// The same for a time of `ms` milliseconds since the epoch.
std::string NewSubmissionId(std::uint64_t ms);

// The time now as SQLite's strftime('%Y-%m-%dT%H:%M:%fZ', 'now') writes it (milliseconds,
// truncated as SQLite's clock is): a submission's created_at.
std::string CreatedAtNow();

// What SQLite's json_set(grade, '$.id', id, '$.vendor', vendor, '$.created_at', created_at) returns
// (the stored result: the grade with the three members appended, strings escaped as SQLite's JSON
// writer escapes them), made without parsing the grade into nodes. nullopt where that shortcut
// does not hold (the grade is not compact JSON, not an object, or already has one of the three
// members): submit.sql then calls json_set itself. committer_test.cpp checks it against json_set.
std::optional<std::string> StoredResultText(std::string_view grade, std::string_view id, std::string_view vendor,
                                            std::string_view created_at);
// The same for a grade IsCompactJson accepted, with the top-level members it found.
std::optional<std::string> StoredResultText(std::string_view grade, std::span<const JsonMember> members,
                                            std::string_view id, std::string_view vendor, std::string_view created_at);

// How long something took, counted in power-of-two buckets of milliseconds: a count per bucket,
// so quantiles are read as bucket bounds ("p99 at most 64 ms") and the whole costs a few
// hundred bytes however many times are added. The writer keeps one for its COMMITs (the WAL's
// write and fsync), the place the slowest submits wait.
class MillisHistogram {
 public:
  static constexpr int kBuckets = 18;  // at most 1 ms, 2, 4, … 65,536 ms; the last holds the rest
  void Add(double ms);
  std::uint64_t Count() const { return count_; }
  double Slowest() const { return slowest_; }
  // An upper bound of the q-quantile (q in (0, 1]): the smallest bucket bound at or under which
  // q of the times fall, or the slowest time when that is less; 0 when empty.
  double Quantile(double q) const;
  // How many times were longer than `ms`, counted in whole buckets: exact when `ms` is a bucket
  // bound (1, 2, 4 … 65,536), else those past the next bound up (a lower bound of the count).
  std::uint64_t Over(double ms) const;

 private:
  std::uint64_t buckets_[kBuckets] = {};
  std::uint64_t count_ = 0;
  double slowest_ = 0;
};

// sql/store/refresh_standings.sql as its statements: scribe_refresh_standings() in plain SQL, for
// the replicated store (whose connections cannot run the extension's writing functions).
const std::vector<StoreStatement>& StoreRefreshStatements();

class Committer {
 public:
  // Opens its own connections to `db_path` (database.h) and starts the writer thread. Throws
  // std::runtime_error like Database.
  //
  // With `store_urls` (cluster mode, store_client.h) the batch goes to the replicated store as one
  // transaction of /v1/exec, the standings refresh in it as plain SQL (sql/store); the answer
  // comes after a quorum of voters has the commit. An answer lost on the way (a leader gone) is
  // repeated with the same ids on the next node, and the batch's own rows found there mean the
  // first attempt committed. A constraint or a rejected statement stores the batch one by one,
  // so that it fails its own submission only.
  Committer(const std::string& db_path, const std::string& synchronous, std::size_t max_batch = 256,
            const std::vector<std::string>& store_urls = {});
  Committer(const Committer&) = delete;
  Committer& operator=(const Committer&) = delete;
  // Stores what is still queued, then stops the writer thread.
  ~Committer();

  // Queues `s` and waits until the transaction holding it has committed (kStored) or failed
  // (kFailed: nothing of it was stored), or it was skipped (kAbandoned). Thread-safe; never
  // throws for a database error (the outcome carries it).
  StoreOutcome Store(PendingSubmission s);

  // Counters for tests and benchmarks: transactions committed and submissions stored, and how
  // long each local COMMIT took (the replicated store's are not counted).
  std::uint64_t Commits() const;
  std::uint64_t Stored() const;
  MillisHistogram CommitTimes() const;
  // The syncer's fdatasyncs of the WAL and how long each took (empty when the writer's COMMIT
  // syncs itself: synchronous = normal, a database not in WAL mode, or cluster mode).
  MillisHistogram SyncTimes() const;
  // For each acknowledged submission (kStored): how long its request thread waited in Store()
  // (queue, transaction, and under the syncer the fdatasync), and, under the syncer, the part
  // of that from its COMMIT's return to the return of the fdatasync that covers it: the disk's
  // share, which no request can be answered sooner than.
  MillisHistogram AckWaits() const;
  MillisHistogram DiskWaits() const;
  // The WAL file the syncer fdatasyncs, or "" when it does not run.
  const std::string& SyncedWal() const { return wal_path_; }

 private:
  struct Item {
    PendingSubmission submission;
    StoreOutcome outcome;
    bool done = false;
    // The grade's top-level members, found on the request thread (Store) so that the one writer
    // does not scan it; compact is false when the grade is not a compact JSON object.
    std::vector<JsonMember> members;
    bool compact = false;
    // The row's vendor_key and note_sha256, also made on the request thread (Store): submit.sql
    // would otherwise fold the name and hash the note on the writer.
    std::string vendor_key, note_sha256;
    // Cluster mode: the row's id and created_at, the insert as sent, and the stored result when
    // it was made here (else read back after the commit).
    std::string id, created_at;
    std::optional<std::string> stored_result;
    StoreStatement insert;
    // Under the syncer: when the COMMIT that holds it returned.
    std::chrono::steady_clock::time_point committed;
  };
  void Run();
  void Sync();
  // The descriptor of the WAL file as it is now (reopened if the file was replaced), or -1 with
  // `error` set; writer thread only.
  int WalFd(std::string& error);
  void WriteBatch(std::deque<Item*>& batch);
  void StoreOne(Item& item);
  // Cluster mode (the writer thread's store client): WriteBatch and StoreOne on the store.
  void WriteBatchOnStore(std::deque<Item*>& batch);
  void StoreOneOnStore(Item& item);
  void PrepareForStore(Item& item);
  void StoredOnStore(Item& item);
  // The ids of `items` that the store holds with this very note (the digest of each).
  std::vector<bool> HeldOnStore(const std::vector<Item*>& items, std::string& error);

  Database db_;
  std::unique_ptr<Checkpointer> checkpointer_;  // local mode: copies the WAL beside the writer
  std::size_t max_batch_;
  mutable std::mutex mu_;
  std::condition_variable queued_;    // the writer waits for work
  std::condition_variable finished_;  // request threads wait for their outcome
  std::deque<Item*> queue_;
  bool stop_ = false;
  std::uint64_t commits_ = 0, stored_ = 0;
  MillisHistogram commit_times_;
  // The syncer (local mode with synchronous = FULL in WAL mode): committed batches wait in
  // unsynced_, each item with the WAL descriptor to sync, until an fdatasync begun after their
  // COMMIT returns. Descriptors of a replaced WAL stay open until the committer stops.
  std::string wal_path_;
  int wal_fd_ = -1;
  dev_t wal_dev_ = 0;
  ino_t wal_ino_ = 0;
  std::vector<int> old_wal_fds_;
  std::deque<std::pair<Item*, int>> unsynced_;
  std::condition_variable unsynced_cv_;  // the syncer waits for committed batches
  bool stop_sync_ = false;
  MillisHistogram sync_times_;
  MillisHistogram ack_waits_, disk_waits_;
  std::thread writer_, syncer_;
};

}  // namespace scribe::http
