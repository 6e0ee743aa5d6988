// committer_test.cpp — group commit (fcgi/committer.h) against a real database file: every
// acknowledged submission is stored, what queues behind a held write lock goes in one
// transaction, one bad submission fails alone, abandoned ones are never stored. (Timing: the
// write lock is held by a second connection while the submissions queue.)
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "committer.h"
#include "database.h"

namespace scribe::http {
namespace {

namespace fs = std::filesystem;

class CommitterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("scribe-committer-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "test.db").string();
    ASSERT_EQ(PrepareDatabase(path_, "tests/fixtures/corpus_suite"), 3);
    Database db(path_);
    Query grade = db.Run("grade");
    grade.Bind(":script_id", "01-sore-throat").Bind(":scribe_output", "Amoxicillin 500 mg three times daily.");
    ASSERT_TRUE(grade.Step());
    result_ = grade.Text(0);
  }
  void TearDown() override { fs::remove_all(dir_); }

  PendingSubmission Pending(const std::string& vendor, const std::string& note) const {
    return PendingSubmission{vendor, note, result_, nullptr};
  }

  // One column of one row, read on a connection of its own.
  std::string Scalar(const std::string& sql) const {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* s = nullptr;
    std::string out = "(error)";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
      out = sqlite3_column_text(s, 0) ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : "NULL";
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
  }

  // A second connection holding the write lock (BEGIN IMMEDIATE), or nullptr; and its release.
  sqlite3* HoldWriteLock() const {
    sqlite3* db = nullptr;
    if (sqlite3_open(path_.c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      sqlite3_close(db);
      return nullptr;
    }
    return db;
  }
  static bool ReleaseWriteLock(sqlite3* db) {
    bool ok = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
  }

  fs::path dir_;
  std::string path_;
  std::string result_;
};

TEST_F(CommitterTest, EverySubmissionOfManyThreadsIsStoredOnceWithItsOwnId) {
  Committer committer(path_, "full");
  constexpr int kThreads = 16;
  std::vector<StoreOutcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] { outcomes[i] = committer.Store(Pending("Vendor " + std::to_string(i % 4), "note " + std::to_string(i))); });
  for (auto& t : threads) t.join();
  std::set<std::string> ids;
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.status, StoreOutcome::kStored) << o.message;
    EXPECT_EQ(o.id.size(), 16u);
    EXPECT_NE(o.stored.find("\"id\":\"" + o.id + "\""), std::string::npos) << o.stored.substr(0, 200);
    ids.insert(o.id);
  }
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kThreads));
  EXPECT_EQ(committer.Stored(), static_cast<std::uint64_t>(kThreads));
  EXPECT_EQ(Scalar("SELECT count(*) FROM submissions"), "16");
  EXPECT_EQ(Scalar("SELECT count(*) FROM grades"), "16");
  // Each commit refreshed the standings of its vendors: nothing is left dirty.
  EXPECT_EQ(Scalar("SELECT count(*) FROM standings_dirty"), "0");
  EXPECT_EQ(Scalar("SELECT group_concat(runs, ',') FROM (SELECT runs FROM standings ORDER BY vendor_key)"), "4,4,4,4");
}

TEST_F(CommitterTest, TheRowsKeysAreWhatTheSqlFunctionsWouldMake) {
  // The vendor key and the note's digest are made on the request thread (Committer::Store), not
  // by scribe_vendor_key and scribe_sha256 on the writer: the same values. Full-width letters and
  // runs of spaces fold (NFKC, case, spacing); SHA-256("abc") is FIPS 180-2's first example.
  Committer committer(path_, "full");
  StoreOutcome out = committer.Store(Pending("  \xEF\xBC\xA3\xEF\xBD\x81\xEF\xBD\x92\xEF\xBD\x85" "ful   Scribe ", "abc"));
  ASSERT_EQ(out.status, StoreOutcome::kStored) << out.message;
  EXPECT_EQ(Scalar("SELECT vendor_key || '|' || note_sha256 || '|' || blank FROM submissions WHERE id = '" + out.id + "'"),
            "careful scribe|ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad|0");
  EXPECT_EQ(Scalar("SELECT group_concat(vendor_key, ',') FROM vendors"), "careful scribe");
}

TEST_F(CommitterTest, WhatQueuesBehindAHeldLockIsCommittedInOneTransaction) {
  sqlite3* holder = HoldWriteLock();
  ASSERT_NE(holder, nullptr);
  Committer committer(path_, "full");
  std::vector<StoreOutcome> outcomes(9);
  std::vector<std::thread> threads;
  // The first waits in BEGIN IMMEDIATE (the busy timeout) while the other eight queue.
  threads.emplace_back([&] { outcomes[0] = committer.Store(Pending("Queue", "first")); });
  usleep(200 * 1000);
  for (int i = 1; i < 9; ++i)
    threads.emplace_back([&, i] { outcomes[i] = committer.Store(Pending("Queue", "note " + std::to_string(i))); });
  usleep(300 * 1000);
  EXPECT_EQ(committer.Commits(), 0u);
  ASSERT_TRUE(ReleaseWriteLock(holder));
  for (auto& t : threads) t.join();
  for (const auto& o : outcomes) EXPECT_EQ(o.status, StoreOutcome::kStored) << o.message;
  EXPECT_EQ(committer.Stored(), 9u);
  EXPECT_EQ(committer.Commits(), 2u);  // the first alone, then the eight that queued behind it
  EXPECT_EQ(committer.CommitTimes().Count(), 2u);  // each COMMIT timed once
  EXPECT_EQ(Scalar("SELECT runs FROM standings"), "9");
}

TEST_F(CommitterTest, UnderFullTheSyncerFdatasyncsTheWalBeforeEachAcknowledgement) {
  // synchronous = FULL on a WAL database: the writer's COMMIT leaves the fsync to the syncer
  // (committer.h). One thread storing in turn: each Store returns only after an fdatasync begun
  // after its own COMMIT, so there are as many syncs as commits.
  Committer committer(path_, "full");
  EXPECT_EQ(committer.SyncedWal(), path_ + "-wal");
  for (int i = 0; i < 3; ++i) {
    StoreOutcome out = committer.Store(Pending("Synced", "note " + std::to_string(i)));
    EXPECT_EQ(out.status, StoreOutcome::kStored) << out.message;
    EXPECT_EQ(committer.SyncTimes().Count(), static_cast<std::uint64_t>(i + 1));
  }
  EXPECT_EQ(committer.Commits(), 3u);
  // Each acknowledgement timed twice: its whole wait in Store, and the disk's part of it, from
  // its COMMIT to the fdatasync's return: never the longer of the two.
  const MillisHistogram acks = committer.AckWaits(), disk = committer.DiskWaits();
  EXPECT_EQ(acks.Count(), 3u);
  EXPECT_EQ(disk.Count(), 3u);
  EXPECT_LE(disk.Slowest(), acks.Slowest());
  for (double bound = 1; bound <= 65536; bound *= 2) EXPECT_LE(disk.Over(bound), acks.Over(bound)) << bound;
  // Under NORMAL nothing is synced before the answer (SQLite's checkpoints sync what they copy).
  Committer normal(path_, "normal");
  EXPECT_EQ(normal.SyncedWal(), "");
  EXPECT_EQ(normal.Store(Pending("Synced", "note 3")).status, StoreOutcome::kStored);
  EXPECT_EQ(normal.SyncTimes().Count(), 0u);
  EXPECT_EQ(normal.AckWaits().Count(), 1u);
  EXPECT_EQ(normal.DiskWaits().Count(), 0u);
  EXPECT_EQ(Scalar("SELECT count(*) FROM submissions"), "4");
}

TEST_F(CommitterTest, ACommitTheSyncerCannotMakeDurableIsAnsweredUnknownWithItsId) {
  // The WAL removed under a live database: the commit succeeds, nothing can be made durable, and
  // the answer says so instead of 201 (the API answers 503 with the id, api.cpp).
  Committer committer(path_, "full");
  ASSERT_EQ(committer.Store(Pending("Lost", "first")).status, StoreOutcome::kStored);
  ASSERT_TRUE(fs::remove(path_ + "-wal"));
  StoreOutcome out = committer.Store(Pending("Lost", "second"));
  EXPECT_EQ(out.status, StoreOutcome::kUnknown);
  EXPECT_EQ(out.id.size(), 16u);
  EXPECT_EQ(out.message, "committed, but not known to be on disk: the WAL " + path_ +
                             "-wal cannot be found: No such file or directory");
  EXPECT_EQ(committer.AckWaits().Count(), 1u);  // the first only: the second was not acknowledged
  EXPECT_EQ(committer.DiskWaits().Count(), 1u);
}

TEST_F(CommitterTest, TheWalGrowsPastSqlitesDefaultButNeverPastItsSizeLimit) {
  // The WAL starts over at Database::kCheckpointPages (3,500), not
  // SQLite's 1,000, and journal_size_limit is 16 MiB: the WAL file, which keeps the largest size
  // it reached, ends between 3,500 frames and the limit. Enough submissions for several checkpoints.
  const auto database_before = fs::file_size(path_);
  Committer committer(path_, "full");
  constexpr int kThreads = 16, kEach = 100;
  std::vector<std::thread> threads;
  std::atomic<int> stored{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i)
        if (committer.Store(Pending("Wal " + std::to_string(t), "note " + std::to_string(t) + "-" + std::to_string(i))).status ==
            StoreOutcome::kStored)
          ++stored;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(stored.load(), kThreads * kEach);
  EXPECT_EQ(Scalar("SELECT count(*) FROM submissions"), std::to_string(kThreads * kEach));
  const auto wal = fs::file_size(path_ + "-wal");
  EXPECT_GE(wal, Database::kCheckpointPages * 4120u) << "checkpointed before the WAL held 3,500 pages (4,096 bytes and a 24-byte header each)";
  // Under the limit, not at it: a WAL that outgrew journal_size_limit is cut back to exactly the
  // limit when it starts over.
  EXPECT_LT(wal, 16u * 1024u * 1024u) << "the WAL outgrew journal_size_limit before a checkpoint";
  EXPECT_GT(fs::file_size(path_), database_before) << "no checkpoint copied the submissions into the database";
}

TEST_F(CommitterTest, ACheckpointerCopiesTheWalIntoTheDatabaseWhenPokedAndNotBefore) {
  // Frames written by a connection that never checkpoints stay in the WAL until the
  // checkpointer's own connection copies them into the database file.
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer,
                         "PRAGMA wal_autocheckpoint = 0; CREATE TABLE filler (x); "
                         "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 200) "
                         "INSERT INTO filler SELECT randomblob(3000) FROM r",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  const auto database_before = fs::file_size(path_);
  {
    Checkpointer checkpointer(path_, "full");
    EXPECT_EQ(checkpointer.Runs(), 0u);
    EXPECT_EQ(fs::file_size(path_), database_before) << "copied before it was poked";
    checkpointer.Poke();
    for (int i = 0; i < 500 && checkpointer.Runs() == 0; ++i) usleep(10 * 1000);
    EXPECT_EQ(checkpointer.Runs(), 1u);
  }
  // 200 rows of 3,000 bytes each are in the database file now.
  EXPECT_GT(fs::file_size(path_), database_before + 200u * 3000u);
  sqlite3_close(writer);
}

TEST_F(CommitterTest, AStoreWritesNoTemporaryFile) {
  // Each submission is inserted in its own SAVEPOINT, and SQLite journals the old content of
  // every page of the file that the insert changes, pages it takes from the freelist included.
  // With the default temp_store a journal over 64 KiB spilled to a file in the temporary
  // directory, written a page at a time and unlinked: that was half the writer's pwrite calls
  // under load (database.cpp). Here the file has free pages (as any database that has deleted
  // rows) and the note is 64 KB, so the insert reuses about 20 of them; SQLite's temporary
  // directory is pointed at a watched one.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE scratch (b BLOB); INSERT INTO scratch VALUES (zeroblob(1048576)); "
                               "DROP TABLE scratch;", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  ASSERT_GE(std::stoi(Scalar("PRAGMA freelist_count")), 200);
  const fs::path tmp = dir_ / "sqlite-tmp";
  fs::create_directories(tmp);
  int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(inotify_add_watch(watch, tmp.c_str(), IN_CREATE), 0);
  char* before = sqlite3_temp_directory;
  sqlite3_temp_directory = sqlite3_mprintf("%s", tmp.c_str());
  std::string note;
  while (note.size() < 65536) note += "Amoxicillin 500 mg by mouth three times daily for 10 days. ";
  StoreOutcome out;
  {
    Committer committer(path_, "full");
    out = committer.Store(Pending("Long Notes", note));
  }
  sqlite3_free(sqlite3_temp_directory);
  sqlite3_temp_directory = before;
  EXPECT_EQ(out.status, StoreOutcome::kStored) << out.message;
  alignas(inotify_event) char events[4096];
  ssize_t n = read(watch, events, sizeof events);
  close(watch);
  EXPECT_EQ(n, -1) << "a file was created in SQLite's temporary directory: "
                   << (n > 0 ? reinterpret_cast<inotify_event*>(events)->name : "");
  EXPECT_EQ(Scalar("SELECT length(scribe_output) FROM submissions"), std::to_string(note.size()));
}

TEST_F(CommitterTest, ABadSubmissionFailsAloneAndAnAbandonedOneIsNotStored) {
  sqlite3* holder = HoldWriteLock();
  ASSERT_NE(holder, nullptr);
  Committer committer(path_, "full");
  StoreOutcome blocker, good, bad, gone;
  std::thread t0([&] { blocker = committer.Store(Pending("Mixed", "blocker")); });
  usleep(200 * 1000);
  std::thread t1([&] { good = committer.Store(Pending("Mixed", "good")); });
  std::thread t2([&] { bad = committer.Store(PendingSubmission{"Mixed", "bad", "{not json", nullptr}); });
  std::thread t3([&] {
    gone = committer.Store(PendingSubmission{"Mixed", "gone", result_, [] { return std::string("the client has gone"); }});
  });
  usleep(300 * 1000);
  ASSERT_TRUE(ReleaseWriteLock(holder));
  for (std::thread* t : {&t0, &t1, &t2, &t3}) t->join();
  EXPECT_EQ(blocker.status, StoreOutcome::kStored);
  EXPECT_EQ(good.status, StoreOutcome::kStored);
  EXPECT_EQ(bad.status, StoreOutcome::kFailed);
  EXPECT_EQ(bad.code, SQLITE_ERROR);
  EXPECT_EQ(bad.message, "malformed JSON");
  EXPECT_EQ(gone.status, StoreOutcome::kAbandoned);
  EXPECT_EQ(gone.why, "the client has gone");
  EXPECT_EQ(Scalar("SELECT group_concat(scribe_output, ',') FROM (SELECT scribe_output FROM submissions ORDER BY 1)"),
            "blocker,good");
  EXPECT_EQ(committer.Commits(), 2u);
}

// A full disk fails the whole transaction: tests/http/test_durability.py, end to end.
TEST_F(CommitterTest, AnInsertTheDatabaseRefusesFailsWithItsCodeAndMessage) {
  Committer committer(path_, "full");
  ASSERT_EQ(committer.Store(Pending("Before", "ok")).status, StoreOutcome::kStored);
  {
    Database db(path_);
    db.ExecWrite("CREATE TRIGGER fail_all BEFORE INSERT ON submissions BEGIN SELECT RAISE(FAIL, 'disk on fire'); END");
  }
  StoreOutcome out = committer.Store(Pending("After", "refused"));
  EXPECT_EQ(out.status, StoreOutcome::kFailed);
  EXPECT_EQ(out.code, SQLITE_CONSTRAINT_TRIGGER);
  EXPECT_EQ(out.message, "disk on fire");
  EXPECT_EQ(Scalar("SELECT count(*) FROM submissions"), "1");
}

}  // namespace
}  // namespace scribe::http

namespace scribe::http {
namespace {

// What SQLite's json_set gives for the stored result, on an in-memory connection.
std::optional<std::string> JsonSet(std::string_view grade, std::string_view id, std::string_view vendor,
                                   std::string_view created_at) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT json_set(?1, '$.id', ?2, '$.vendor', ?3, '$.created_at', ?4)", -1, &s, nullptr);
  int i = 1;
  for (std::string_view v : {grade, id, vendor, created_at})
    sqlite3_bind_text(s, i++, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  std::optional<std::string> out;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    out = std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
                      static_cast<size_t>(sqlite3_column_bytes(s, 0)));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

TEST_F(CommitterTest, StoredResultTextIsWhatJsonSetStoresForEveryByteAndHostileNames) {
  Database db(path_);
  std::vector<std::string> grades;
  for (const char* note : {"Amoxicillin 500 mg three times daily.", "", "No SI. \"quoted\" \\ back\x01slash"}) {
    Query grade = db.Run("grade");
    grade.Bind(":script_id", "01-sore-throat").Bind(":scribe_output", note);
    ASSERT_TRUE(grade.Step());
    grades.push_back(grade.Text(0));
  }
  grades.push_back("{}");
  grades.push_back(R"({"a":{"id":1},"b":["vendor"],"c":"created_at"})");  // nested or valued: not members
  std::vector<std::string> vendors = {"Acme Scribe", "<svg onload=alert(1)>", "'; DROP TABLE submissions; --",
                                      "../../etc/passwd", "Zoë ＡＣＭＥ 名前", "a\"b\\c", "tab\there",
                                      std::string("nul\0byte", 8), "\xC3\x28 invalid \xFF utf-8", "\u2028\u2029"};
  for (int c = 0; c < 256; ++c) vendors.push_back(std::string("v") + static_cast<char>(c) + "w");
  size_t compared = 0;
  for (const std::string& g : grades)
    for (const std::string& v : vendors) {
      std::optional<std::string> ours = StoredResultText(g, "0123456789abcdef", v, "2026-12-03T10:11:12.345Z");
      ASSERT_TRUE(ours) << g;
      EXPECT_EQ(*ours, JsonSet(g, "0123456789abcdef", v, "2026-12-03T10:11:12.345Z")) << v;
      ++compared;
    }
  EXPECT_EQ(compared, 5u * 266u);
}

TEST(NewSubmissionId, IsTheMillisecondThenTwentyRandomBitsSoLaterIdsSortLater) {
  const std::regex hex16("^[0-9a-f]{16}$");
  EXPECT_EQ(NewSubmissionId(1796688000000).substr(0, 11), "1a252f33400");  // 2026-12-07T00:00:00Z
  EXPECT_EQ(NewSubmissionId(0).substr(0, 11), "00000000000");
  EXPECT_EQ(NewSubmissionId((1ULL << 44) - 1).substr(0, 11), "fffffffffff");  // 2^44 - 1: a day in 2527
  std::set<std::string> same_ms;
  for (int i = 0; i < 1000; ++i) {
    std::string id = NewSubmissionId(1796688000000);
    ASSERT_TRUE(std::regex_match(id, hex16)) << id;
    EXPECT_LT(id, NewSubmissionId(1796688000001)) << "an id of the next millisecond sorts after every one of this";
    same_ms.insert(std::move(id));
  }
  // 1,000 draws of 20 random bits: half a collision expected, ten or more about never.
  EXPECT_GT(same_ms.size(), 990u);
  const auto ms_now = [] {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
  };
  const std::uint64_t before = ms_now();
  const std::string now = NewSubmissionId();
  const std::uint64_t after = ms_now(), carried = std::stoull(now.substr(0, 11), nullptr, 16);
  EXPECT_GE(carried, before);
  EXPECT_LE(carried, after);
}

TEST(MillisHistogram, ReadsQuantilesAsBucketBoundsNeverAboveTheSlowest) {
  MillisHistogram h;
  EXPECT_EQ(h.Count(), 0u);
  EXPECT_EQ(h.Quantile(0.99), 0.0);
  for (double ms : {0.4, 1.0, 3.0, 3.0, 100.0}) h.Add(ms);  // buckets <= 1, <= 1, <= 4, <= 4, <= 128
  EXPECT_EQ(h.Count(), 5u);
  EXPECT_EQ(h.Slowest(), 100.0);
  EXPECT_EQ(h.Quantile(0.4), 1.0);    // two of five at most 1 ms
  EXPECT_EQ(h.Quantile(0.5), 4.0);    // the third
  EXPECT_EQ(h.Quantile(0.99), 100.0); // the fifth: its bucket's bound (128) is past the slowest
  h.Add(2.0);                         // a bound belongs to its own bucket: <= 2
  EXPECT_EQ(h.Quantile(0.5), 2.0);
  h.Add(100000.0);                    // past the last bound (65,536 ms): the slowest
  EXPECT_EQ(h.Quantile(1.0), 100000.0);
  EXPECT_EQ(h.Slowest(), 100000.0);
  // Over counts whole buckets: 0.4, 1, 2, 3, 3, 100, 100000
  EXPECT_EQ(h.Over(-1), 7u);
  EXPECT_EQ(h.Over(0), 5u);       // bucket <= 1 holds 0.4 and 1 alike: neither counted
  EXPECT_EQ(h.Over(1), 5u);       // exact at a bound
  EXPECT_EQ(h.Over(2), 4u);
  EXPECT_EQ(h.Over(2.5), 2u);     // between bounds: past the next one up (4), so not 3 and 3
  EXPECT_EQ(h.Over(64), 2u);
  EXPECT_EQ(h.Over(50), 2u);
  EXPECT_EQ(h.Over(128), 1u);     // 100000, in the last bucket
  EXPECT_EQ(h.Over(65536), 1u);
  EXPECT_EQ(h.Over(200000), 0u);  // past the last bound: nothing is known to be longer
}

TEST(StoredResultText, LeavesToJsonSetWhatItCannotAppend) {
  for (const char* grade : {R"({"id":"x","a":1})", R"({"a":1,"vendor":"v"})", R"({"created_at":"t"})", R"({"\u0069d":1})",
                            R"({ "a": 1 })", "[1,2]", "not json", ""})
    EXPECT_FALSE(StoredResultText(grade, "id", "vendor", "t")) << grade;
}

TEST(CreatedAtNow, IsStrftimeNowToTheMillisecond) {
  std::string ours = CreatedAtNow();
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_stmt* s = nullptr;
  // Same shape, and within a second of SQLite's own clock (SQLite reads the same clock).
  sqlite3_prepare_v2(db, "SELECT ?1 GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9].[0-9][0-9][0-9]Z', "
                         "abs(julianday(?1) - julianday('now')) * 86400 < 1, strftime('%Y-%m-%dT%H:%M:%fZ', ?1) = ?1",
                     -1, &s, nullptr);
  sqlite3_bind_text(s, 1, ours.c_str(), -1, SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), 1) << ours;
  EXPECT_EQ(sqlite3_column_int(s, 1), 1) << ours;
  EXPECT_EQ(sqlite3_column_int(s, 2), 1) << ours;
  sqlite3_finalize(s);
  sqlite3_close(db);
}

}  // namespace
}  // namespace scribe::http

namespace scribe::http {
namespace {

TEST(ResultColumns, ReadsWhatJsonExtractWouldAndLeavesTheRestToSqlite) {
  constexpr std::string_view kKeys[] = {"s", "n", "t", "f", "z", "absent"};
  auto v = sql::ResultColumns(R"({"n":-2.5e3,"s":"text é","t":true,"f":false,"z":null,"o":{"s":"nested"}})", kKeys);
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 6u);
  EXPECT_EQ((*v)[0].type, sql::SqlValue::kText);
  EXPECT_EQ((*v)[0].text, "text é");
  EXPECT_EQ((*v)[1].type, sql::SqlValue::kText);  // digits: the column's affinity converts them
  EXPECT_EQ((*v)[1].text, "-2.5e3");
  EXPECT_EQ((*v)[2].type, sql::SqlValue::kInteger);
  EXPECT_EQ((*v)[2].integer, 1);
  EXPECT_EQ((*v)[3].integer, 0);
  EXPECT_EQ((*v)[4].type, sql::SqlValue::kNull);
  EXPECT_EQ((*v)[5].type, sql::SqlValue::kNull);
  for (const char* leave : {R"({"s":"a\"b"})", R"({"s":1,"s":2})", R"({"s":{}})", R"({"s":[1]})", R"({ "s":1})", "[1]", "",
                            "not json"})
    EXPECT_FALSE(sql::ResultColumns(leave, kKeys)) << leave;
  EXPECT_TRUE(sql::ResultColumns(R"({"other":"a\"b","o":{"s":"x\"y"}})", kKeys)) << "only the keys read matter";
}

// The columns a stored submission and its first grade copy from the result are what SQLite's
// JSON functions read from it, value and type.
TEST_F(CommitterTest, StoredColumnsAreWhatJsonExtractReads) {
  {
    Committer committer(path_, "normal");
    for (const char* note : {"Amoxicillin 500 mg three times daily.", "No SI.", ""})
      ASSERT_EQ(committer.Store(Pending("Acme", note)).status, StoreOutcome::kStored);
  }
  auto same_real = [](const std::string& c) {
    return "(" + c + " IS CAST(result ->> '$." + c + "' AS REAL) AND typeof(" + c + ") IN ('real', 'null'))";
  };
  std::string cond = "script_id IS result ->> '$.script_id' AND kind IS result ->> '$.kind' AND "
                     "corpus_hash IS result ->> '$.corpus_hash' AND grader_version IS result ->> '$.grader_version' AND "
                     "unsafe IS result ->> '$.unsafe' AND typeof(unsafe) = 'integer'";
  for (const char* c : {"score_total", "score_drug", "score_mental", "score_fabrication"}) cond += " AND " + same_real(c);
  EXPECT_EQ(Scalar("SELECT count(*) FROM submissions WHERE " + cond), "3");
  EXPECT_EQ(Scalar("SELECT count(*) FROM grades g JOIN submissions s ON s.id = g.submission_id "
                   "WHERE g.result = json(s.result) AND g.critical_count IS s.result ->> '$.critical_error_count' "
                   "AND g.methodology_version IS s.result ->> '$.methodology_version'"),
            "3");
}

}  // namespace
}  // namespace scribe::http

namespace scribe::http {
namespace {

// The standings refresh a grader runs on the replicated store (sql/store/refresh_standings.sql,
// plain SQL) leaves what scribe_refresh_standings() leaves: two databases with the same rows, one
// refreshed each way, compared table by table after a dirty refresh, a full one (another
// version's standings in the table) and one with nothing to do.
TEST(StoreRefreshStatements, DoWhatScribeRefreshStandingsDoes) {
  const fs::path dir = fs::temp_directory_path() / ("scribe-refresh-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string a_path = (dir / "a.db").string(), b_path = (dir / "b.db").string();
  ASSERT_EQ(PrepareDatabase(a_path, "tests/fixtures/corpus_suite"), 3);
  ASSERT_EQ(PrepareDatabase(b_path, "tests/fixtures/corpus_suite"), 3);
  Database a(a_path), b(b_path);
  auto both = [&](const std::string& sql) {
    a.ExecWrite(sql);
    b.ExecWrite(sql);
  };
  auto refresh = [&] {
    a.ExecWrite("SELECT scribe_refresh_standings()");
    for (const StoreStatement& st : StoreRefreshStatements()) b.ExecWrite(st.sql);
  };
  auto dump = [](const std::string& path) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    std::string out;
    for (const char* sql : {"SELECT * FROM standings ORDER BY vendor_key", "SELECT * FROM standings_dirty ORDER BY 1",
                            "SELECT key, value FROM meta WHERE key = 'standings_for'"}) {
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) out += "(error)";
      while (s && sqlite3_step(s) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(s); ++c) {
          const unsigned char* t = sqlite3_column_text(s, c);
          out += t ? reinterpret_cast<const char*>(t) : "NULL";
          out += '|';
        }
        out += '\n';
      }
      sqlite3_finalize(s);
      out += "--\n";
    }
    sqlite3_close(db);
    return out;
  };
  both("INSERT INTO submissions (id, script_id, vendor, created_at, corpus_hash, grader_version, score_total, unsafe, "
       "scribe_output, result) "
       "WITH t(id, vendor, script, at, score, note) AS (VALUES "
       "('e1', 'Eve', '01-sore-throat', '2026-11-01T00:00:00Z', 0.6, 'e one'), "
       "('e2', 'Eve', '02-ankle-sprain', '2026-11-02T00:00:00Z', 0.8, 'e two'), "
       "('e3', 'Eve', '02-ankle-sprain', '2026-11-03T00:00:00Z', 1.0, 'e three'), "
       "('f1', 'Finn', '01-sore-throat', '2026-11-04T00:00:00Z', 1.0, 'f one'), "
       "('f2', 'Finn', '01-sore-throat', '2026-11-05T00:00:00Z', 0.4, 'f two'), "
       "('f3', 'Finn', '01-sore-throat', '2026-11-06T00:00:00Z', 1.0, 'f three')) "
       "SELECT id, script, vendor, at, (SELECT corpus_hash FROM trials LIMIT 1), scribe_version(), score, 0, note, "
       "'{\"critical_errors\":[]}' FROM t");
  ASSERT_EQ(dump(a_path), dump(b_path));
  refresh();  // the dirty vendors
  EXPECT_NE(dump(a_path).find("eve|3|2|"), std::string::npos) << dump(a_path);
  EXPECT_EQ(dump(a_path), dump(b_path));
  both("UPDATE meta SET value = 'another grader and corpus' WHERE key = 'standings_for'");
  both("INSERT INTO submissions (id, script_id, vendor, created_at, corpus_hash, grader_version, score_total, unsafe, "
       "scribe_output, result) SELECT 'g1', '02-ankle-sprain', 'Gus', '2026-11-07T00:00:00Z', corpus_hash, "
       "scribe_version(), 0.9, 0, 'g one', '{\"critical_errors\":[]}' FROM trials LIMIT 1");
  refresh();  // a full one: the table held another version's standings
  EXPECT_NE(dump(a_path).find("gus|1|1|"), std::string::npos) << dump(a_path);
  EXPECT_EQ(dump(a_path), dump(b_path));
  refresh();  // nothing to do
  EXPECT_EQ(dump(a_path), dump(b_path));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scribe::http
