// store.cpp — migrations, terminology mirror, corpus loading and the trial cache (see store.h).
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "store.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "embedded.h"
#include "functions.h"
#include "hash.h"
#include "sqlite_util.h"
#include "trial.h"

namespace scribe::sql {
namespace {

using nlohmann::json;

// The numbered blocks of sql/schema.sql.
std::vector<std::pair<int, std::string>> Migrations() {
  std::vector<std::pair<int, std::string>> out;
  const std::string_view schema = embedded_file("sql/schema.sql");
  const std::string_view marker = "-- migrate ";
  size_t pos = schema.find(marker);
  while (pos != std::string_view::npos) {
    size_t line_end = schema.find('\n', pos);
    int number = std::atoi(std::string(schema.substr(pos + marker.size(), line_end - pos - marker.size())).c_str());
    size_t next = schema.find(marker, line_end);
    out.emplace_back(number, std::string(schema.substr(line_end + 1, next == std::string_view::npos ? std::string_view::npos : next - line_end - 1)));
    pos = next;
  }
  return out;
}

int UserVersion(sqlite3* db) {
  Stmt s = Prepare(db, "PRAGMA user_version");
  return sqlite3_step(s.get()) == SQLITE_ROW ? sqlite3_column_int(s.get(), 0) : 0;
}

void RefreshTerminology(sqlite3* db) {
  const Terminology& t = DefaultTerminology();
  {
    Stmt s = Prepare(db, "SELECT value FROM meta WHERE key = 'terminology_version'");
    if (sqlite3_step(s.get()) == SQLITE_ROW && ColumnText(s.get(), 0) == t.version() + "/" + std::to_string(t.size())) return;
  }
  Exec(db, "SAVEPOINT scribe_terminology");
  try {
    Exec(db, "DELETE FROM terminology");
    Stmt ins = Prepare(db, "INSERT INTO terminology (rxcui, tty, name, ingredient_rxcui, ingredient, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    for (uint32_t id = 0; id < t.size(); ++id) {
      const Concept& c = t.concept_at(id);
      sqlite3_reset(ins.get());
      if (c.rxcui.empty()) sqlite3_bind_null(ins.get(), 1); else BindText(ins.get(), 1, c.rxcui);
      BindText(ins.get(), 2, c.tty);
      BindText(ins.get(), 3, c.name);
      std::string ids;
      for (const std::string& r : c.ingredients) ids += (ids.empty() ? "" : " / ") + r;
      BindText(ins.get(), 4, ids);
      BindText(ins.get(), 5, t.IngredientNames(id));
      BindText(ins.get(), 6, c.source);
      Step(db, ins.get());
    }
    Stmt meta = Prepare(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('terminology_version', ?1)");
    BindText(meta.get(), 1, t.version() + "/" + std::to_string(t.size()));
    Step(db, meta.get());
    Exec(db, "RELEASE scribe_terminology");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK TO scribe_terminology; RELEASE scribe_terminology", nullptr, nullptr, nullptr);
    throw;
  }
}

// Writes the recordings of a corpus being loaded into trial_audio (inside the load's savepoint,
// after the trials they reference).
void StoreAudio(sqlite3* db, const Corpus& corpus) {
  Exec(db, "DELETE FROM trial_audio");
  Stmt ins = Prepare(db,
      "INSERT INTO trial_audio (trial_id, file, sha256, bytes, duration_s, voices, text_sha256, stale, renderer) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  for (const Recording& r : corpus.audio.recordings) {
    sqlite3_reset(ins.get());
    BindText(ins.get(), 1, r.trial_id);
    BindText(ins.get(), 2, r.file);
    BindText(ins.get(), 3, r.sha256);
    sqlite3_bind_int64(ins.get(), 4, r.bytes);
    sqlite3_bind_double(ins.get(), 5, r.duration_s);
    BindText(ins.get(), 6, r.voices.dump(-1, ' ', false, json::error_handler_t::replace));
    BindText(ins.get(), 7, r.text_sha256);
    sqlite3_bind_int(ins.get(), 8, r.stale ? 1 : 0);
    BindText(ins.get(), 9, r.renderer.dump(-1, ' ', false, json::error_handler_t::replace));
    Step(db, ins.get());
  }
}

}  // namespace

void Migrate(sqlite3* db) {
  Exec(db, "PRAGMA foreign_keys = ON");
  if (sqlite3_db_readonly(db, "main") == 1) return;
  RegisterMigrationFunctions(db);  // migrations compute vendor keys and digests
  const char* file = sqlite3_db_filename(db, "main");
  if (file && *file) sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
  int version = UserVersion(db);
  auto migrations = Migrations();
  if (!migrations.empty() && version < migrations.back().first) {
    Exec(db, "BEGIN IMMEDIATE");
    try {
      version = UserVersion(db);  // another process may have migrated meanwhile
      for (const auto& [number, sql] : migrations) {
        if (number <= version) continue;
        Exec(db, sql.c_str());
        Exec(db, ("PRAGMA user_version = " + std::to_string(number)).c_str());
      }
      Exec(db, "COMMIT");
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }
  RefreshTerminology(db);
}

int LoadCorpusIntoDb(sqlite3* db, const std::string& dir, const std::string& sealed_dir) {
  const Rules& rules = DefaultRules();
  Corpus corpus = LoadCorpus(dir, rules, DefaultTerminology());  // validates everything first
  if (!sealed_dir.empty()) {
    Corpus sealed = LoadCorpus(sealed_dir, rules, DefaultTerminology());
    std::string both = corpus.corpus_hash + "\n" + sealed.corpus_hash;
    for (Trial& t : sealed.trials) {
      for (const Trial& p : corpus.trials)
        if (p.id == t.id)
          throw SqlError(SQLITE_ERROR, "scribe_load_corpus: " + sealed_dir + "/" + t.source_file + ": id '" + t.id +
                                           "' is also a public trial (" + p.source_file + ")");
      if (!t.sealed)
        throw SqlError(SQLITE_ERROR, "scribe_load_corpus: " + sealed_dir + "/" + t.source_file +
                                         ": a trial of the sealed corpus must say sealed: true");
      corpus.trials.push_back(std::move(t));
    }
    std::sort(corpus.trials.begin(), corpus.trials.end(), [](const Trial& a, const Trial& b) { return a.id < b.id; });
    for (const auto& [name, hash] : sealed.files) corpus.files.emplace_back("sealed/" + name, hash);
    corpus.corpus_hash = Sha256Hex(both);
  }
  json files = json::array();
  for (const auto& [name, hash] : corpus.files) files.push_back({{"file", name}, {"sha256", hash}});
  Exec(db, "SAVEPOINT scribe_load_corpus");
  try {
    Stmt version = Prepare(db,
        "INSERT INTO corpus_versions (corpus_hash, source_dir, trial_count, files, grader_version) "
        "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (corpus_hash) DO UPDATE SET loaded_at = excluded.loaded_at, "
        "source_dir = excluded.source_dir");
    BindText(version.get(), 1, corpus.corpus_hash);
    BindText(version.get(), 2, dir);
    sqlite3_bind_int(version.get(), 3, static_cast<int>(corpus.trials.size()));
    BindText(version.get(), 4, files.dump());
    BindText(version.get(), 5, rules.grader_version);
    Step(db, version.get());
    Exec(db, "DELETE FROM trials");
    Stmt ins = Prepare(db,
        "INSERT INTO trials (id, title, difficulty, summary, encounter_text, instructions, sealed, source_file, "
        "version_hash, corpus_hash, ground_truth, definition, kind) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    for (const Trial& t : corpus.trials) {
      sqlite3_reset(ins.get());
      BindText(ins.get(), 1, t.id);
      BindText(ins.get(), 2, t.title);
      BindText(ins.get(), 3, t.difficulty);
      BindText(ins.get(), 4, t.summary);
      BindText(ins.get(), 5, t.encounter_text);
      BindText(ins.get(), 6, t.instructions);
      sqlite3_bind_int(ins.get(), 7, t.sealed ? 1 : 0);
      BindText(ins.get(), 8, t.source_file);
      BindText(ins.get(), 9, t.version_hash);
      BindText(ins.get(), 10, corpus.corpus_hash);
      BindText(ins.get(), 11, GroundTruthJson(t).dump(-1, ' ', false, json::error_handler_t::replace));
      BindText(ins.get(), 12, TrialToJson(t).dump(-1, ' ', false, json::error_handler_t::replace));
      BindText(ins.get(), 13, t.kind);
      Step(db, ins.get());
    }
    StoreAudio(db, corpus);
    // The commitment: each sealed file's SHA-256, locked the first time it is loaded; a changed
    // file is a new version (a new row), the old row stays for anyone to check later.
    Stmt commit = Prepare(db, "INSERT OR IGNORE INTO sealed_commitments (trial_id, version_hash, source_file) VALUES (?1, ?2, ?3)");
    for (const Trial& t : corpus.trials) {
      if (!t.sealed) continue;
      sqlite3_reset(commit.get());
      BindText(commit.get(), 1, t.id);
      BindText(commit.get(), 2, t.version_hash);
      BindText(commit.get(), 3, t.source_file);
      Step(db, commit.get());
    }
    RefreshStandings(db);  // a new corpus: the standings of its versions (none yet, or stored grades)
    Exec(db, "RELEASE scribe_load_corpus");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK TO scribe_load_corpus; RELEASE scribe_load_corpus", nullptr, nullptr, nullptr);
    throw;
  }
  return static_cast<int>(corpus.trials.size());
}

namespace {

struct CachedTrial {
  std::string version_hash, corpus_hash;
  std::shared_ptr<const PreparedTrial> trial;
};

struct TrialCache {
  std::mutex mu;          // guards `trials`
  std::mutex preparing;   // one preparation at a time: threads missing together wait for it
  std::map<std::string, CachedTrial> trials;
};

TrialCache& ProcessTrials() {
  static TrialCache cache;  // destroyed at exit (or when the extension is unloaded)
  return cache;
}

std::shared_ptr<const PreparedTrial> Lookup(TrialCache& cache, const std::string& id, const std::string& version_hash,
                                            const std::string& corpus_hash) {
  std::lock_guard<std::mutex> lock(cache.mu);
  auto it = cache.trials.find(id);
  if (it != cache.trials.end() && it->second.version_hash == version_hash && it->second.corpus_hash == corpus_hash)
    return it->second.trial;
  return nullptr;
}

}  // namespace

void ForgetPreparedTrials() {
  TrialCache& cache = ProcessTrials();
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.trials.clear();
}

std::shared_ptr<const PreparedTrial> Connection::Trial(sqlite3* db, const std::string& id, std::string& corpus_hash) {
  std::string version_hash;
  {
    // Kept: compiling this lookup cost more than running it, once per grade.
    KeptUse s(db, statements, "SELECT version_hash, corpus_hash FROM trials WHERE id = ?1");
    BindText(s.get(), 1, id);
    int rc = sqlite3_step(s.get());
    if (rc == SQLITE_DONE) throw SqlError(SQLITE_ERROR, "grade_submission: unknown trial '" + id + "'");
    if (rc != SQLITE_ROW) throw SqlError(rc, sqlite3_errmsg(db));
    version_hash = ColumnText(s.get(), 0);
    corpus_hash = ColumnText(s.get(), 1);
  }
  TrialCache& cache = ProcessTrials();
  if (auto hit = Lookup(cache, id, version_hash, corpus_hash)) return hit;
  std::lock_guard<std::mutex> preparing(cache.preparing);
  if (auto hit = Lookup(cache, id, version_hash, corpus_hash)) return hit;  // prepared while this thread waited
  Stmt d = Prepare(db, "SELECT definition FROM trials WHERE id = ?1");
  BindText(d.get(), 1, id);
  if (sqlite3_step(d.get()) != SQLITE_ROW) throw SqlError(SQLITE_ERROR, "grade_submission: unknown trial '" + id + "'");
  json def = json::parse(ColumnText(d.get(), 0), nullptr, false);
  if (def.is_discarded()) throw SqlError(SQLITE_CORRUPT, "grade_submission: stored definition of '" + id + "' is not JSON");
  const Rules& rules = DefaultRules();
  auto prepared = std::make_shared<const PreparedTrial>(TrialFromJson(def, rules, DefaultTerminology()), rules,
                                                        DefaultTerminology(), DefaultAssertionAnalyzer());
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.trials[id] = CachedTrial{version_hash, corpus_hash, prepared};
  return prepared;
}

}  // namespace scribe::sql
