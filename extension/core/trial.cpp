// trial.cpp — trial YAML parsing, validation and (de)serialisation (see trial.h).
#include "trial.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "hash.h"

namespace scribe {
namespace {

using nlohmann::json;

// Validation context: the file name and the current key path, for error messages.
class Ctx {
 public:
  Ctx(std::string file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}
  Ctx Key(std::string_view key) const { return Ctx(file_, path_.empty() ? std::string(key) : path_ + "." + std::string(key)); }
  Ctx Index(size_t i) const { return Ctx(file_, path_ + "[" + std::to_string(i) + "]"); }
  [[noreturn]] void Fail(std::string_view problem) const {
    throw TrialError(file_ + ": " + (path_.empty() ? std::string("(top level)") : path_) + ": " + std::string(problem));
  }

 private:
  std::string file_, path_;
};

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 80)) out += c == '"' ? '\'' : c;
  if (s.size() > 80) out += "…";
  return out + "\"";
}

void CheckKeys(const YAML::Node& map, const Ctx& ctx, std::initializer_list<const char*> allowed) {
  for (const auto& kv : map) {
    std::string key = kv.first.as<std::string>();
    bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; });
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      ctx.Key(key).Fail("unknown key (allowed here: " + list + ")");
    }
  }
}

std::string RequiredString(const YAML::Node& map, const char* key, const Ctx& ctx) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) ctx.Key(key).Fail("is required");
  if (!n.IsScalar()) ctx.Key(key).Fail("expected text");
  std::string s = n.as<std::string>();
  if (Trim(s).empty()) ctx.Key(key).Fail("must not be empty");
  return s;
}

std::string OptionalString(const YAML::Node& map, const char* key, const Ctx& ctx) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return {};
  if (!n.IsScalar()) ctx.Key(key).Fail("expected text");
  std::string s = n.as<std::string>();
  if (Trim(s).empty()) ctx.Key(key).Fail("must not be empty when given");
  return std::string(Trim(s));
}

std::vector<std::string> StringList(const YAML::Node& n, const Ctx& ctx, bool allow_empty = true) {
  std::vector<std::string> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) ctx.Fail("expected a list");
  for (size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsScalar()) ctx.Index(i).Fail("expected text");
    std::string s(Trim(n[i].as<std::string>()));
    if (s.empty()) ctx.Index(i).Fail("must not be empty");
    out.push_back(std::move(s));
  }
  if (!allow_empty && out.empty()) ctx.Fail("must list at least one entry");
  return out;
}

double Number(const YAML::Node& n, const Ctx& ctx) {
  if (!n || n.IsNull()) ctx.Fail("is required");
  if (!n.IsScalar()) ctx.Fail("expected a number");
  std::string s = n.as<std::string>();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) ctx.Fail("expected a number, got " + Quote(s));
  if (v < 0 || v > 1) ctx.Fail("must be between 0 and 1, got " + s);
  return v;
}

// Resolves a drug name to ingredient keys, or a name-only key when the offline terminology
// does not know it (a newer drug): such a med still matches notes that write the same name.
void ResolveName(const std::string& name, const Terminology& terminology, std::vector<std::string>& keys,
                 std::string* drug, std::string* rxcui, bool* known) {
  if (auto m = terminology.Lookup(name); m && m->kind != MatchKind::kApproximate) {
    keys.push_back(terminology.IngredientKey(m->concept_id));
    if (drug && drug->empty()) {
      *drug = terminology.IngredientNames(m->concept_id);
      for (const std::string& r : terminology.concept_at(m->concept_id).ingredients)
        *rxcui += (rxcui->empty() ? "" : " / ") + r;
    }
    if (known) *known = true;
  } else {
    keys.push_back("name:" + NormalizePhrase(name));
    if (drug && drug->empty()) *drug = NormalizePhrase(name);
  }
}

void ResolveMed(ExpectedMed& med, const Ctx& ctx, const Rules& rules, const Terminology& terminology) {
  SigParser sig(rules);
  ResolveName(med.name, terminology, med.keys, &med.drug, &med.rxcui, &med.in_terminology);
  for (const std::string& s : med.synonyms) ResolveName(s, terminology, med.keys, nullptr, nullptr, nullptr);
  std::sort(med.keys.begin(), med.keys.end());
  med.keys.erase(std::unique(med.keys.begin(), med.keys.end()), med.keys.end());
  if (!med.dose_text.empty()) {
    med.dose = sig.ParseDose(med.dose_text);
    if (!med.dose) ctx.Key("dose").Fail("cannot parse dose " + Quote(med.dose_text) + " (expected e.g. \"50 mg\", \"two 200 mg tablets\", \"2 puffs\")");
  }
  if (!med.frequency_text.empty()) {
    med.frequency = sig.ParseFrequency(med.frequency_text);
    if (!med.frequency) ctx.Key("frequency").Fail("cannot parse frequency " + Quote(med.frequency_text) + " (expected e.g. \"twice daily\", \"q8h\", \"q4-6h prn\", \"weekly\")");
  }
  if (!med.route_text.empty()) {
    med.route = sig.ParseRoute(med.route_text);
    if (!med.route) ctx.Key("route").Fail("unknown route " + Quote(med.route_text) + " (see corpus/rules/routes.tsv)");
  }
  if (!med.action_text.empty()) {
    std::string a = rules.CanonicalAction(med.action_text);
    if (a.empty()) ctx.Key("action").Fail("unknown action " + Quote(med.action_text) + " (expected start, continue, stop, increase or decrease)");
    med.action = a;
  }
}

void ResolveCritical(CriticalRule& rule, const Ctx& ctx, const Rules& rules, const Terminology& terminology) {
  if (!rule.med.empty()) ResolveName(rule.med, terminology, rule.med_keys, nullptr, nullptr, nullptr);
  for (std::string& a : rule.actions) {
    std::string c = rules.CanonicalAction(a);
    if (c.empty()) ctx.Key("actions").Fail("unknown action " + Quote(a));
    a = c;
  }
}

}  // namespace

Trial ParseTrial(std::string_view yaml_text, std::string_view file_name, const Rules& rules,
                 const Terminology& terminology) {
  const std::string file(file_name);
  Ctx top(file, "");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw TrialError(file + ": line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1) +
                     ": invalid YAML: " + e.msg);
  }
  if (!root || !root.IsMap()) top.Fail("expected a mapping of trial keys (id, title, difficulty, …)");
  try {
    CheckKeys(root, top, {"id", "title", "difficulty", "summary", "encounter_text", "instructions", "ground_truth",
                          "weights", "credit", "critical_errors", "sealed"});
    Trial t;
    t.source_file = file;
    t.version_hash = Sha256Hex(yaml_text);
    t.id = RequiredString(root, "id", top);
    static const std::regex kIdPattern("^[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)*$");
    if (!std::regex_match(t.id, kIdPattern)) top.Key("id").Fail("must look like NN-slug (two digits, a hyphen, lower-case words), got " + Quote(t.id));
    t.title = std::string(Trim(RequiredString(root, "title", top)));
    t.difficulty = RequiredString(root, "difficulty", top);
    if (t.difficulty != "easy" && t.difficulty != "medium" && t.difficulty != "hard")
      top.Key("difficulty").Fail("must be easy, medium or hard, got " + Quote(t.difficulty));
    t.summary = std::string(Trim(RequiredString(root, "summary", top)));
    t.encounter_text = RequiredString(root, "encounter_text", top);
    t.instructions = std::string(Trim(RequiredString(root, "instructions", top)));

    Ctx gt_ctx = top.Key("ground_truth");
    YAML::Node gt = root["ground_truth"];
    if (!gt || gt.IsNull()) gt_ctx.Fail("is required");
    if (!gt.IsMap()) gt_ctx.Fail("expected a mapping with meds, allergies, mental_flags, deferred_dx, fabrication_traps");
    CheckKeys(gt, gt_ctx, {"meds", "allergies", "mental_flags", "deferred_dx", "fabrication_traps"});

    auto list = [&](const char* key) {
      YAML::Node n = gt[key];
      if (n && !n.IsNull() && !n.IsSequence()) gt_ctx.Key(key).Fail("expected a list");
      return n;
    };
    YAML::Node meds = list("meds");
    for (size_t i = 0; meds && i < meds.size(); ++i) {
      Ctx c = gt_ctx.Key("meds").Index(i);
      if (!meds[i].IsMap()) c.Fail("expected a mapping with name, dose, frequency, route, action");
      CheckKeys(meds[i], c, {"name", "dose", "frequency", "route", "action", "synonyms"});
      ExpectedMed m;
      m.name = std::string(Trim(RequiredString(meds[i], "name", c)));
      m.dose_text = OptionalString(meds[i], "dose", c);
      m.frequency_text = OptionalString(meds[i], "frequency", c);
      m.route_text = OptionalString(meds[i], "route", c);
      m.action_text = OptionalString(meds[i], "action", c);
      m.synonyms = StringList(meds[i]["synonyms"], c.Key("synonyms"));
      ResolveMed(m, c, rules, terminology);
      t.meds.push_back(std::move(m));
    }
    YAML::Node allergies = list("allergies");
    for (size_t i = 0; allergies && i < allergies.size(); ++i) {
      Ctx c = gt_ctx.Key("allergies").Index(i);
      ExpectedAllergy a;
      if (allergies[i].IsScalar()) {
        a.substance = std::string(Trim(allergies[i].as<std::string>()));
        if (a.substance.empty()) c.Fail("must not be empty");
      } else if (allergies[i].IsMap()) {
        CheckKeys(allergies[i], c, {"substance", "reaction"});
        a.substance = std::string(Trim(RequiredString(allergies[i], "substance", c)));
        a.reaction = OptionalString(allergies[i], "reaction", c);
      } else {
        c.Fail("expected a mapping with substance and reaction");
      }
      t.allergies.push_back(std::move(a));
    }
    YAML::Node flags = list("mental_flags");
    for (size_t i = 0; flags && i < flags.size(); ++i) {
      Ctx c = gt_ctx.Key("mental_flags").Index(i);
      if (!flags[i].IsMap()) c.Fail("expected a mapping with flag and keywords");
      CheckKeys(flags[i], c, {"flag", "keywords"});
      MentalFlag f;
      f.flag = std::string(Trim(RequiredString(flags[i], "flag", c)));
      f.keywords = StringList(flags[i]["keywords"], c.Key("keywords"));
      t.mental_flags.push_back(std::move(f));
    }
    t.deferred_dx = StringList(list("deferred_dx"), gt_ctx.Key("deferred_dx"));
    YAML::Node traps = list("fabrication_traps");
    for (size_t i = 0; traps && i < traps.size(); ++i) {
      Ctx c = gt_ctx.Key("fabrication_traps").Index(i);
      Trap trap;
      if (traps[i].IsScalar()) {
        trap.phrase = std::string(Trim(traps[i].as<std::string>()));
        if (trap.phrase.empty()) c.Fail("must not be empty");
      } else if (traps[i].IsMap()) {
        CheckKeys(traps[i], c, {"phrase", "variants", "match"});
        trap.phrase = std::string(Trim(RequiredString(traps[i], "phrase", c)));
        trap.variants = StringList(traps[i]["variants"], c.Key("variants"));
        std::string match = OptionalString(traps[i], "match", c);
        if (!match.empty() && match != "affirmed" && match != "any")
          c.Key("match").Fail("must be affirmed or any, got " + Quote(match));
        trap.match_any = match == "any";
      } else {
        c.Fail("expected a phrase or a mapping with phrase, variants, match");
      }
      t.traps.push_back(std::move(trap));
    }

    Ctx w_ctx = top.Key("weights");
    YAML::Node w = root["weights"];
    if (!w || w.IsNull()) w_ctx.Fail("is required");
    if (!w.IsMap()) w_ctx.Fail("expected a mapping {drug, mental, fabrication}");
    CheckKeys(w, w_ctx, {"drug", "mental", "fabrication"});
    t.weights.drug = Number(w["drug"], w_ctx.Key("drug"));
    t.weights.mental = Number(w["mental"], w_ctx.Key("mental"));
    t.weights.fabrication = Number(w["fabrication"], w_ctx.Key("fabrication"));
    double sum = t.weights.drug + t.weights.mental + t.weights.fabrication;
    if (std::fabs(sum - 1.0) > 1e-6) {
      std::ostringstream os;
      os << "must sum to 1.0, got " << sum;
      w_ctx.Fail(os.str());
    }

    if (YAML::Node cr = root["credit"]; cr && !cr.IsNull()) {
      Ctx c = top.Key("credit");
      if (!cr.IsMap()) c.Fail("expected a mapping {name, dose, frequency, route, action}");
      CheckKeys(cr, c, {"name", "dose", "frequency", "route", "action"});
      Credit credit{0, 0, 0, 0, 0};
      if (cr["name"]) credit.name = Number(cr["name"], c.Key("name"));
      if (cr["dose"]) credit.dose = Number(cr["dose"], c.Key("dose"));
      if (cr["frequency"]) credit.frequency = Number(cr["frequency"], c.Key("frequency"));
      if (cr["route"]) credit.route = Number(cr["route"], c.Key("route"));
      if (cr["action"]) credit.action = Number(cr["action"], c.Key("action"));
      double total = credit.name + credit.dose + credit.frequency + credit.route + credit.action;
      if (std::fabs(total - 1.0) > 1e-6) {
        std::ostringstream os;
        os << "must sum to 1.0, got " << total;
        c.Fail(os.str());
      }
      t.credit = credit;
      t.credit_overridden = true;
    }

    if (YAML::Node ce = root["critical_errors"]; ce && !ce.IsNull()) {
      Ctx c = top.Key("critical_errors");
      if (!ce.IsSequence()) c.Fail("expected a list");
      std::set<std::string> ids;
      for (size_t i = 0; i < ce.size(); ++i) {
        Ctx ci = c.Index(i);
        if (!ce[i].IsMap()) ci.Fail("expected a mapping with id, description and med/actions or asserts");
        CheckKeys(ce[i], ci, {"id", "description", "med", "actions", "asserts"});
        CriticalRule r;
        r.id = RequiredString(ce[i], "id", ci);
        if (!ids.insert(r.id).second) ci.Key("id").Fail("duplicate critical error id " + Quote(r.id));
        r.description = std::string(Trim(RequiredString(ce[i], "description", ci)));
        r.med = OptionalString(ce[i], "med", ci);
        r.actions = StringList(ce[i]["actions"], ci.Key("actions"));
        r.asserts = StringList(ce[i]["asserts"], ci.Key("asserts"));
        if (r.med.empty() == r.asserts.empty()) ci.Fail("needs either med (with actions) or asserts");
        if (!r.med.empty() && r.actions.empty()) ci.Key("actions").Fail("is required with med");
        ResolveCritical(r, ci, rules, terminology);
        t.critical_errors.push_back(std::move(r));
      }
    }
    if (YAML::Node s = root["sealed"]; s && !s.IsNull()) {
      std::string v = s.IsScalar() ? s.as<std::string>() : "";
      if (v != "true" && v != "false") top.Key("sealed").Fail("must be true or false");
      t.sealed = v == "true";
    }
    return t;
  } catch (const YAML::Exception& e) {
    throw TrialError(file + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

json GroundTruthJson(const Trial& t) {
  json meds = json::array();
  for (const ExpectedMed& m : t.meds) {
    json j = {{"name", m.name}};
    if (!m.dose_text.empty()) j["dose"] = m.dose_text;
    if (!m.frequency_text.empty()) j["frequency"] = m.frequency_text;
    if (!m.route_text.empty()) j["route"] = m.route_text;
    if (!m.action_text.empty()) j["action"] = m.action_text;
    if (!m.synonyms.empty()) j["synonyms"] = m.synonyms;
    meds.push_back(j);
  }
  json allergies = json::array();
  for (const auto& a : t.allergies) {
    json j = {{"substance", a.substance}};
    if (!a.reaction.empty()) j["reaction"] = a.reaction;
    allergies.push_back(j);
  }
  json flags = json::array();
  for (const auto& f : t.mental_flags) flags.push_back({{"flag", f.flag}, {"keywords", f.keywords}});
  json traps = json::array();
  for (const auto& tr : t.traps) {
    if (tr.variants.empty() && !tr.match_any) { traps.push_back(tr.phrase); continue; }
    json j = {{"phrase", tr.phrase}};
    if (!tr.variants.empty()) j["variants"] = tr.variants;
    if (tr.match_any) j["match"] = "any";
    traps.push_back(j);
  }
  return {{"meds", meds}, {"allergies", allergies}, {"mental_flags", flags},
          {"deferred_dx", t.deferred_dx}, {"fabrication_traps", traps}};
}

json TrialToJson(const Trial& t) {
  json critical = json::array();
  for (const auto& r : t.critical_errors) {
    json j = {{"id", r.id}, {"description", r.description}};
    if (!r.med.empty()) { j["med"] = r.med; j["actions"] = r.actions; }
    if (!r.asserts.empty()) j["asserts"] = r.asserts;
    critical.push_back(j);
  }
  json j = {{"id", t.id}, {"title", t.title}, {"difficulty", t.difficulty}, {"summary", t.summary},
            {"encounter_text", t.encounter_text}, {"instructions", t.instructions},
            {"ground_truth", GroundTruthJson(t)},
            {"weights", {{"drug", t.weights.drug}, {"mental", t.weights.mental}, {"fabrication", t.weights.fabrication}}},
            {"critical_errors", critical}, {"sealed", t.sealed},
            {"source_file", t.source_file}, {"version_hash", t.version_hash}};
  if (t.credit_overridden)
    j["credit"] = {{"name", t.credit.name}, {"dose", t.credit.dose}, {"frequency", t.credit.frequency},
                   {"route", t.credit.route}, {"action", t.credit.action}};
  return j;
}

Trial TrialFromJson(const json& j, const Rules& rules, const Terminology& terminology) {
  // The stored definition is the YAML's own structure, so the same validator rebuilds it.
  json copy = j;
  std::string file = copy.value("source_file", std::string("(stored trial)"));
  std::string hash = copy.value("version_hash", std::string());
  copy.erase("source_file");
  copy.erase("version_hash");
  if (copy.contains("critical_errors") && copy["critical_errors"].empty()) copy.erase("critical_errors");
  // JSON is valid YAML.
  Trial t = ParseTrial(copy.dump(-1, ' ', false, json::error_handler_t::replace), file, rules, terminology);
  t.version_hash = hash;
  return t;
}

Corpus LoadCorpus(const std::string& dir, const Rules& rules, const Terminology& terminology) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw TrialError(dir + ": not a readable directory");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    std::string ext = entry.path().extension().string();
    if (ext == ".yaml" || ext == ".yml") files.push_back(entry.path());
  }
  if (ec) throw TrialError(dir + ": " + ec.message());
  if (files.empty()) throw TrialError(dir + ": no trial files (*.yaml) found");
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  Corpus corpus;
  Sha256 corpus_hash;
  std::set<std::string> ids;
  for (const fs::path& p : files) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw TrialError(p.filename().string() + ": cannot be read");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() > (1u << 20)) throw TrialError(p.filename().string() + ": larger than 1 MiB");
    corpus_hash.Update(bytes);
    Trial t = ParseTrial(bytes, p.filename().string(), rules, terminology);
    if (!ids.insert(t.id).second) throw TrialError(p.filename().string() + ": id: duplicate trial id \"" + t.id + "\"");
    corpus.files.emplace_back(p.filename().string(), t.version_hash);
    corpus.trials.push_back(std::move(t));
  }
  std::sort(corpus.trials.begin(), corpus.trials.end(), [](const Trial& a, const Trial& b) { return a.id < b.id; });

  // The recordings (audio.h). Their manifest is part of the corpus version.
  corpus.audio = LoadAudioManifest(AudioDirectory(dir));
  if (!corpus.audio.bytes.empty()) {
    corpus_hash.Update(corpus.audio.bytes);
    corpus.files.emplace_back(kAudioManifestName, corpus.audio.sha256);
  }
  MatchRecordings(corpus.audio, corpus.trials);

  corpus.corpus_hash = corpus_hash.HexDigest();
  return corpus;
}

}  // namespace scribe
