// functions.cpp — thin SQL shells over the pure core: convert arguments, call, set the result.
//
//   SELECT scribe_version();                                   -- '1.2.0'
//   SELECT scribe_load_corpus('corpus/scripts');               -- 10
//   SELECT rxnorm_lookup('Zoloft');                            -- JSON, source "local"
//   SELECT json_extract(grade_submission('03-depression-suicidal-ideation',
//            'Patient on sertaline 50mg daily. Reports insomnia. No SI.'), '$.score_total');
//   SELECT badge_svg('scribe-trials', '92% pass', 'brightgreen');
//   SELECT scribe_methodology();                               -- rules as JSON
//   SELECT fhir_validate('{"resourceType": "MedicationStatement"}');
//     -- {"valid":false,"findings":[{"path":"MedicationStatement","message":…}, …]}
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "functions.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>

#include "badge.h"
#include "embedded.h"
#include "fhir/validate.h"
#include "grade.h"
#include "kind.h"
#include "sqlite_util.h"
#include "store.h"

namespace scribe::sql {
namespace {

using nlohmann::json;

std::string Arg(sqlite3_value* v) {
  const unsigned char* t = sqlite3_value_text(v);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_value_bytes(v))) : std::string();
}

void ResultJsonText(sqlite3_context* ctx, const std::string& s) {
  sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  sqlite3_result_subtype(ctx, 'J');  // JSON subtype: json_* functions nest it as an object
}

void ResultJson(sqlite3_context* ctx, const json& j) { ResultJsonText(ctx, DumpJson(j)); }

Connection& Conn(sqlite3_context* ctx) { return *static_cast<Connection*>(sqlite3_user_data(ctx)); }

json YamlToJson(const YAML::Node& n) {
  if (n.IsMap()) {
    json j = json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = YamlToJson(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    json j = json::array();
    for (const auto& v : n) j.push_back(YamlToJson(v));
    return j;
  }
  if (n.IsScalar()) return n.as<std::string>();
  return nullptr;
}

}  // namespace

void ScribeVersion(sqlite3_context* ctx, int, sqlite3_value**) {
  Firewall(ctx, [&] {
    const std::string& v = DefaultRules().grader_version;
    sqlite3_result_text(ctx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  });
}

void ScribeLoadCorpus(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) throw SqlError(SQLITE_ERROR, "scribe_load_corpus: directory must not be NULL");
    std::string sealed_dir;
    if (argc > 1 && sqlite3_value_type(argv[1]) != SQLITE_NULL) sealed_dir = Arg(argv[1]);
    int n = LoadCorpusIntoDb(sqlite3_context_db_handle(ctx), Arg(argv[0]), sealed_dir);
    ForgetPreparedTrials();
    sqlite3_result_int(ctx, n);
  });
}

void RxnormLookup(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) { sqlite3_result_null(ctx); return; }
    std::string term = Arg(argv[0]);
    Conn(ctx).validator->BeginNote();  // each lookup has the live-validation budget of a note
    Validation v = Conn(ctx).validator->Validate(term, std::nullopt);
    std::string out;
    JsonWriter w(out);
    v.Write(w);
    ResultJsonText(ctx, out);
  });
}

void GradeSubmission(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) throw SqlError(SQLITE_ERROR, "grade_submission: script_id must not be NULL");
    // A NULL note (readfile() of a missing file, a NULL column) is NULL, as SQLite's own
    // functions answer; an empty text is an empty note and is graded.
    if (sqlite3_value_type(argv[1]) == SQLITE_NULL) { sqlite3_result_null(ctx); return; }
    std::string id = Arg(argv[0]);
    std::string note = Arg(argv[1]);
    std::string corpus_hash;
    auto trial = Conn(ctx).Trial(sqlite3_context_db_handle(ctx), id, corpus_hash);
    Conn(ctx).validator->BeginNote();  // the live-validation budget is per note
    ResultJsonText(ctx, GradeText(*trial, note, corpus_hash, *Conn(ctx).validator));
  });
}

void BadgeSvgFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    std::string svg = BadgeSvg(Arg(argv[0]), Arg(argv[1]), Arg(argv[2]));
    sqlite3_result_text(ctx, svg.data(), static_cast<int>(svg.size()), SQLITE_TRANSIENT);
  });
}

void ScribeMethodology(sqlite3_context* ctx, int, sqlite3_value**) {
  Firewall(ctx, [&] {
    const Rules& r = DefaultRules();
    const Terminology& t = DefaultTerminology();
    static const json methodology = [&] {
      json frequencies = json::array();
      for (const auto& f : r.frequencies)
        frequencies.push_back({{"pattern", f.pattern}, {"per_day", f.per_day_expr.empty() ? json(nullptr) : json(f.per_day_expr)}, {"prn", f.prn}});
      json units = json::array();
      for (const auto& u : r.units)
        units.push_back({{"token", u.token}, {"unit", u.canonical}, {"factor", u.factor}, {"family", u.family}});
      json routes = json::array();
      for (const auto& [phrase, route] : r.routes) routes.push_back({{"phrase", phrase}, {"route", route}});
      json actions = json::array();
      for (const auto& a : r.actions) actions.push_back({{"phrase", a.phrase}, {"action", a.action}, {"where", a.where}});
      for (const auto& [alias, action] : r.action_aliases) actions.push_back({{"phrase", alias}, {"action", action}, {"where", "alias"}});
      json synonyms = json::array();
      for (const auto& [a, b] : r.clinical_synonyms) synonyms.push_back({a, b});
      YAML::Node assertion = YAML::Load(std::string(embedded_file("corpus/rules/assertion.yaml")));
      YAML::Node changelog = YAML::Load(r.changelog_yaml);
      json kinds = json::object();
      for (const Kind* k : AllKinds()) kinds[std::string(k->name())] = k->Methodology();
      YAML::Node limitations = YAML::Load(std::string(embedded_file("corpus/rules/limitations.yaml")));
      json m = {
          {"grader_version", r.grader_version},
          {"methodology_version", r.methodology_version},
          {"terminology", {{"offline", t.version()}, {"rxnorm_release", t.release_date()}, {"concepts", t.size()}}},
          {"kinds", kinds},
          {"assertion", YamlToJson(assertion)},
          {"frequencies", frequencies},
          {"units", units},
          {"routes", routes},
          {"actions", actions},
          {"clinical_synonyms", synonyms},
          {"changelog", YamlToJson(changelog["changelog"])},
          {"limitations", YamlToJson(limitations["limitations"])}};
      // The seed-000 note rules stay top-level for clients written before kinds.
      for (const char* key : {"scores", "default_credit", "penalties", "critical_errors"}) m[key] = kinds["note"][key];
      return m;
    }();
    ResultJson(ctx, methodology);
  });
}

// fhir_validate(resource_json): the fhir_write schema dimension's findings (fhir/validate.h) as
// {"valid": bool, "findings": [{"path", "message"}, …]}; NULL gives NULL.
void FhirValidate(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Firewall(ctx, [&] {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) { sqlite3_result_null(ctx); return; }
    std::vector<fhir::Finding> findings = fhir::ValidateMedicationStatementText(Arg(argv[0]));
    ResultJson(ctx, {{"valid", findings.empty()}, {"findings", fhir::RenderFindings(findings)}});
  });
}

void ScribeT95(sqlite3_context* ctx, int, sqlite3_value** argv) {
  // Two-sided 95 % critical values of Student's t by degrees of freedom.
  static const double kT[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                              2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                              2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) { sqlite3_result_null(ctx); return; }
  sqlite3_int64 df = sqlite3_value_int64(argv[0]);
  if (df < 1) { sqlite3_result_null(ctx); return; }
  double t = df <= 30 ? kT[df] : df <= 40 ? 2.021 : df <= 60 ? 2.000 : df <= 120 ? 1.980 : 1.960;
  sqlite3_result_double(ctx, t);
}

}  // namespace scribe::sql
