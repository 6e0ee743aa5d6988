// local_grader.cpp — the in-memory database of local_grader.h.
#include "local_grader.h"

#include <sqlite3.h>

#include <cstdlib>
#include <stdexcept>

#include "hash.h"
#include "kind.h"
#include "rules.h"
#include "rxnav.h"
#include "sqlite_util.h"
#include "terminology.h"
#include "trial.h"

extern "C" int sqlite3_scribe_init(sqlite3* db, char** pzErrMsg, const struct sqlite3_api_routines* pApi);

namespace scribe::run {

using nlohmann::json;
using scribe::sql::ColumnText;
using scribe::sql::Prepare;

LocalGrader::LocalGrader(const std::string& corpus_dir, const std::string& sealed_dir, bool live) {
  // The extension picks its validator when it is initialised: offline unless live was asked for
  // (then the server's own environment decides, SCRIBE_OFFLINE included).
  std::string saved;
  const char* was = std::getenv("SCRIBE_OFFLINE");
  if (was) saved = was;
  if (!live) setenv("SCRIBE_OFFLINE", "1", 1);
  int rc = sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  char* err = nullptr;
  if (rc == SQLITE_OK) rc = sqlite3_scribe_init(db_, &err, nullptr);
  // What the extension chose: live unless the environment says offline, as on the server.
  live_ = live && !LiveConfigFromEnv().offline;
  if (!live) {
    if (was)
      setenv("SCRIBE_OFFLINE", saved.c_str(), 1);
    else
      unsetenv("SCRIBE_OFFLINE");
  }
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    sqlite3_close_v2(db_);  // closes once a statement still in scope is finalised
    throw std::runtime_error(msg);
  }
  {
    sql::Stmt load = Prepare(db_, "SELECT scribe_load_corpus(?1, ?2)");
    sql::BindText(load.get(), 1, corpus_dir);
    if (!sealed_dir.empty()) sql::BindText(load.get(), 2, sealed_dir);
    if (sqlite3_step(load.get()) != SQLITE_ROW) {
      std::string msg = sqlite3_errmsg(db_);
      sqlite3_close_v2(db_);  // closes once a statement still in scope is finalised
      throw std::runtime_error("loading " + corpus_dir + ": " + msg);
    }
  }
  try {
    ReadTrials();
  } catch (...) {
    sqlite3_close_v2(db_);  // the destructor of a half-built object never runs
    throw;
  }
}

void LocalGrader::ReadTrials() {
  sql::Stmt s = Prepare(db_, "SELECT id, kind, title, sealed, definition, corpus_hash FROM trials ORDER BY id");
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    TrialInfo t;
    t.id = ColumnText(s.get(), 0);
    t.kind = ColumnText(s.get(), 1);
    t.title = ColumnText(s.get(), 2);
    t.sealed = sqlite3_column_int(s.get(), 3) != 0;
    json definition = json::parse(ColumnText(s.get(), 4), nullptr, false);
    Trial trial = TrialFromJson(definition, DefaultRules(), DefaultTerminology());
    t.prompt = KindOf(trial).Prompt(trial);
    t.prompt_sha256 = Sha256Hex(t.prompt);
    corpus_hash_ = ColumnText(s.get(), 5);
    trials_.push_back(std::move(t));
  }
}

LocalGrader::~LocalGrader() { sqlite3_close_v2(db_); }

const TrialInfo* LocalGrader::Find(std::string_view id) const {
  for (const TrialInfo& t : trials_)
    if (t.id == id) return &t;
  return nullptr;
}

json LocalGrader::Grade(const std::string& trial_id, std::string_view output) {
  sql::Stmt s = Prepare(db_, "SELECT grade_submission(?1, ?2)");
  sql::BindText(s.get(), 1, trial_id);
  sql::BindText(s.get(), 2, output);
  if (sqlite3_step(s.get()) != SQLITE_ROW) throw std::runtime_error(sqlite3_errmsg(db_));
  return json::parse(ColumnText(s.get(), 0));
}

json LocalGrader::Versions() const {
  json methodology = json::object();
  for (const TrialInfo& t : trials_)
    if (const Kind* k = FindKind(t.kind)) methodology[t.kind] = k->methodology_version(DefaultRules());
  return {{"grader_version", DefaultRules().grader_version},
          {"methodology_versions", methodology},
          {"corpus_hash", corpus_hash_},
          {"validation", live_ ? "live" : "offline"}};
}

}  // namespace scribe::run
