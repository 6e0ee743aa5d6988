// rubric.cpp — kind `rubric` (see rubric.h): schema, prepared form, scorer and renderer.
#include "rubric.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "embedded.h"
#include "phrases.h"
#include "scorers/claims_check.h"
#include "scorers/encounter.h"
#include "scorers/fabrication.h"

namespace scribe {
namespace {

using nlohmann::json;

json YamlJson(const YAML::Node& n) {
  if (n.IsMap()) {
    json j = json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = YamlJson(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    json j = json::array();
    for (const auto& v : n) j.push_back(YamlJson(v));
    return j;
  }
  if (n.IsScalar()) {
    const std::string s = n.as<std::string>();
    if (n.Tag() != "!") {
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (!s.empty() && end && *end == '\0') return v;
    }
    return s;
  }
  return nullptr;
}

// corpus/rules/rubric.yaml, parsed once.
struct RubricRules {
  std::string methodology_version;
  double total_points = 100, partial_credit = 0.5;
  std::vector<RubricCategory> categories;
  std::map<std::string, double> severity_points;
  std::map<std::string, std::string> detector_severity;  // class -> severity
  std::set<std::string, std::less<>> other_words;                      // "no other X": a denial about other things
  json published;
};

const RubricRules& RubricDefaults() {
  static const RubricRules rules = [] {
    RubricRules r;
    YAML::Node y = YAML::Load(std::string(embedded_file("corpus/rules/rubric.yaml")));
    r.methodology_version = y["methodology_version"].as<std::string>();
    r.total_points = y["total_points"].as<double>();
    r.partial_credit = y["partial_credit"].as<double>();
    for (const auto& c : y["categories"])
      r.categories.push_back({c["name"].as<std::string>(), c["label"].as<std::string>(), c["points"].as<double>()});
    for (const auto& s : y["severities"]) r.severity_points[s["name"].as<std::string>()] = s["points"].as<double>();
    for (const auto& d : y["detectors"]) r.detector_severity[d["class"].as<std::string>()] = d["severity"].as<std::string>();
    for (const auto& w : y["other_words"]) r.other_words.insert(w.as<std::string>());
    r.published = YamlJson(y);
    return r;
  }();
  return rules;
}

bool IsSlug(std::string_view s) {
  if (s.empty() || s.size() > 64 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

std::string Points(double v) { return FormatNumber(Round4(v)); }

RubricItem ParseItem(const YAML::Node& n, const SchemaPath& c, const std::set<std::string>& categories, const Rules& rules,
                     const Terminology& terminology) {
  if (!n.IsMap()) c.Fail("expected a mapping with id, category, points, fact and find or med");
  CheckKeys(n, c, {"id", "category", "points", "fact", "find", "partial", "incorrect", "requires", "assert", "when", "med",
                   "partial_credit", "critical"});
  RubricItem item;
  item.id = RequiredString(n, "id", c);
  if (!IsSlug(item.id)) c.Key("id").Fail("must be a slug (lower-case words joined by hyphens), got " + Quote(item.id));
  item.category = RequiredString(n, "category", c);
  if (!categories.count(item.category)) {
    std::string list;
    for (const auto& k : categories) list += (list.empty() ? "" : ", ") + k;
    c.Key("category").Fail("unknown category " + Quote(item.category) + " (categories: " + list + ")");
  }
  item.points = Number(n["points"], c.Key("points"), 0, 100);
  if (item.points <= 0) c.Key("points").Fail("must be more than 0");
  item.fact = std::string(Trim(RequiredString(n, "fact", c)));
  item.find = StringList(n["find"], c.Key("find"));
  item.partial = StringList(n["partial"], c.Key("partial"));
  item.incorrect = StringList(n["incorrect"], c.Key("incorrect"));
  if (YAML::Node r = n["requires"]; r && !r.IsNull()) {
    if (!r.IsSequence()) c.Key("requires").Fail("expected a list of phrase groups");
    for (size_t i = 0; i < r.size(); ++i) {
      if (r[i].IsScalar()) item.required.push_back({std::string(Trim(r[i].as<std::string>()))});
      else item.required.push_back(StringList(r[i], c.Key("requires").Index(i), false));
    }
  }
  std::string polarity = OptionalString(n, "assert", c);
  if (!polarity.empty() && polarity != "affirmed" && polarity != "negated" && polarity != "advice")
    c.Key("assert").Fail("must be affirmed, negated or advice, got " + Quote(polarity));
  item.negated = polarity == "negated";
  item.advice = polarity == "advice";
  item.when = ParseWhen(n, c);
  if (YAML::Node pc = n["partial_credit"]; pc && !pc.IsNull()) item.partial_credit = Number(pc, c.Key("partial_credit"));
  if (YAML::Node cr = n["critical"]; cr && !cr.IsNull()) item.critical = Boolean(cr, c.Key("critical"));
  bool has_med = n["med"] && !n["med"].IsNull();
  if (has_med) {
    if (!item.find.empty() || !item.partial.empty() || !item.incorrect.empty() || !item.required.empty() || !polarity.empty())
      c.Fail("a med item is recognised by the drug matcher: it takes no find, partial, incorrect, requires or assert");
    item.med = ParseExpectedMed(n["med"], c.Key("med"), rules, terminology);
  } else if (item.find.empty()) {
    c.Fail("needs find (phrases) or med (a structured medication fact)");
  }
  return item;
}

enum class ListKind : uint8_t { kFind, kPartial, kIncorrect };

struct ItemMatcher {
  std::vector<PhraseSet> required;
  std::vector<std::string> qualifiers;  // qualifier words ("passive") the item's own phrases use
};

// One hit of an item's phrase in a note.
struct ItemHit {
  size_t begin, end;
  ListKind list;
};

// Every item's find, partial and incorrect phrases in one matcher, so the longest match wins
// across items: "safety plan" (one item) hides the "plan" of "denies plan or intent" (another).
class ItemPhrases {
 public:
  ItemPhrases(const std::vector<RubricItem>& items, const Rules& rules) : matcher_(true), items_(items.size()) {
    std::map<std::string, int> ids;
    auto add = [&](size_t item, ListKind list, const std::vector<std::string>& phrases) {
      for (const std::string& phrase : phrases)
        for (const std::string& e : ExpandPhrase(phrase, rules)) {
          auto [it, fresh] = ids.emplace(e, static_cast<int>(targets_.size()));
          if (fresh) {
            matcher_.Add(e, it->second);
            targets_.emplace_back();
          }
          auto& t = targets_[static_cast<size_t>(it->second)];
          if (std::find(t.begin(), t.end(), std::pair{item, list}) == t.end()) t.emplace_back(item, list);
        }
    };
    for (size_t i = 0; i < items.size(); ++i) {
      add(i, ListKind::kFind, items[i].find);
      add(i, ListKind::kPartial, items[i].partial);
      add(i, ListKind::kIncorrect, items[i].incorrect);
    }
  }
  // Hits per item, in note order.
  std::vector<std::vector<ItemHit>> Find(const TokenizedText& text) const {
    std::vector<std::vector<ItemHit>> out(items_);
    for (const PatternMatch& m : matcher_.FindAll(text.tokens, 0, text.tokens.size()))
      for (const auto& [item, list] : targets_[static_cast<size_t>(m.id)]) out[item].push_back({m.begin, m.end, list});
    return out;
  }

 private:
  PhraseMatcher matcher_;
  size_t items_;
  std::vector<std::vector<std::pair<size_t, ListKind>>> targets_;
};

struct RubricPrepared : PreparedBody {
  RubricPrepared(const RubricTrial& t, const Trial& trial, const Environment& env)
      : env(env),
        encounter(trial.encounter_text, env),
        critical(t.critical_errors, env.rules),
        phrases(t.items, env.rules),
        claims(encounter.analyzed) {
    qualifiers.insert(env.rules.assertion.qualifiers.begin(), env.rules.assertion.qualifiers.end());
    for (const RubricItem& item : t.items) {
      ItemMatcher m;
      for (const auto& group : item.required) m.required.emplace_back(group, env.rules);
      for (const auto& phrase : item.find)
        for (const std::string& w : PhraseWords(phrase))
          if (qualifiers.count(w)) m.qualifiers.push_back(w);
      items.push_back(std::move(m));
      if (item.med) expected_keys.insert(item.med->keys.begin(), item.med->keys.end());
    }
    for (const RubricDeduction& d : t.deductions) deductions.emplace_back(d.phrases, env.rules);
    std::vector<const PhraseMatcher*> swept;
    for (const ItemMatcher& m : items)
      for (const PhraseSet& set : m.required) swept.push_back(&set.matcher());
    for (const PhraseSet& set : deductions) swept.push_back(&set.matcher());
    critical.AddMatchers(swept);
    starts = MatcherStarts(std::move(swept));
  }
  // `starts` points at the matchers of `items`, `deductions` and `critical`: a copy would point at
  // these.
  RubricPrepared(const RubricPrepared&) = delete;
  RubricPrepared& operator=(const RubricPrepared&) = delete;
  Environment env;
  PreparedEncounter encounter;
  CriticalRuleChecker critical;
  ItemPhrases phrases;
  ClaimCheck claims;
  std::vector<ItemMatcher> items;
  std::vector<PhraseSet> deductions;
  MatcherStarts starts;  // the required, deduction and critical-rule phrases: where they may start in a note
  std::set<std::string> expected_keys;
  StringSet qualifiers;
};

struct ItemResult {
  std::string credit = "absent";  // full, partial, absent, incorrect
  double points = 0;
  EvidenceList evidence;
  std::string why;
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // code points of every span the item judged
};

struct DeductionResult {
  std::string severity, source, why;
  double points = 0;
  std::optional<Evidence> evidence;
};

struct RubricOutcome : Outcome {
  AnalyzedText note;
  std::vector<ItemResult> items;
  std::vector<DeductionResult> deductions;
  std::vector<double> category_points;  // earned, per category
  double earned = 0, deducted = 0, total = 0;
};

bool Overlaps(const Evidence& e, const std::vector<std::pair<uint32_t, uint32_t>>& spans) {
  for (const auto& [b, en] : spans)
    if (e.start_offset < en && b < e.end_offset) return true;
  return false;
}

bool Within(const Evidence& e, const std::vector<std::pair<uint32_t, uint32_t>>& spans) {
  for (const auto& [b, en] : spans)
    if (b <= e.start_offset && e.end_offset <= en) return true;
  return false;
}

class Rubric final : public Kind {
 public:
  std::string_view name() const override { return "rubric"; }
  std::string_view description() const override {
    return "a psychiatric note on a 100-point checklist in four categories, minus hallucination deductions "
           "(-3/-8/-15); score_total = points / 100";
  }
  std::vector<std::string> keys() const override { return {"rubric", "critical_errors"}; }

  void Parse(const YAML::Node& root, const SchemaPath& top, const ParseEnv& env, Trial& trial) const override {
    const RubricRules& rr = RubricDefaults();
    auto body = std::make_shared<RubricTrial>();
    SchemaPath rc = top.Key("rubric");
    YAML::Node r = root["rubric"];
    if (!r || r.IsNull()) rc.Fail("is required");
    if (!r.IsMap()) rc.Fail("expected a mapping with categories, items and deductions");
    CheckKeys(r, rc, {"categories", "items", "deductions"});

    body->categories = rr.categories;
    if (YAML::Node cats = r["categories"]; cats && !cats.IsNull()) {
      SchemaPath cc = rc.Key("categories");
      if (!cats.IsMap()) cc.Fail("expected a mapping of category points");
      std::vector<std::string> names;
      for (const auto& c : rr.categories) names.push_back(c.name);
      CheckKeys(cats, cc, names);
      for (RubricCategory& c : body->categories)
        if (cats[c.name]) c.points = Number(cats[c.name], cc.Key(c.name), 0, rr.total_points);
    }
    double sum = 0;
    for (const auto& c : body->categories) sum += c.points;
    if (std::fabs(sum - rr.total_points) > 1e-6)
      rc.Key("categories").Fail("must total " + Points(rr.total_points) + " points, got " + Points(sum));

    std::set<std::string> names;
    for (const auto& c : body->categories) names.insert(c.name);
    SchemaPath ic = rc.Key("items");
    YAML::Node items = r["items"];
    if (!items || items.IsNull()) ic.Fail("is required");
    if (!items.IsSequence() || items.size() == 0) ic.Fail("expected a list of checklist items");
    std::set<std::string> ids;
    for (size_t i = 0; i < items.size(); ++i) {
      RubricItem item = ParseItem(items[i], ic.Index(i), names, env.rules, env.terminology);
      if (!ids.insert(item.id).second) ic.Index(i).Key("id").Fail("duplicate item id " + Quote(item.id));
      body->items.push_back(std::move(item));
    }
    for (const auto& c : body->categories) {
      double got = 0;
      for (const auto& item : body->items)
        if (item.category == c.name) got += item.points;
      if (std::fabs(got - c.points) > 1e-6)
        ic.Fail("the items of category " + c.name + " total " + Points(got) + " points; the category has " + Points(c.points));
    }

    if (YAML::Node ds = r["deductions"]; ds && !ds.IsNull()) {
      SchemaPath dc = rc.Key("deductions");
      if (!ds.IsSequence()) dc.Fail("expected a list");
      for (size_t i = 0; i < ds.size(); ++i) {
        SchemaPath di = dc.Index(i);
        if (!ds[i].IsMap()) di.Fail("expected a mapping with severity, phrases and why");
        CheckKeys(ds[i], di, {"severity", "phrases", "why", "when"});
        RubricDeduction d;
        d.severity = RequiredString(ds[i], "severity", di);
        if (!rr.severity_points.count(d.severity)) di.Key("severity").Fail("must be minor, major or critical, got " + Quote(d.severity));
        d.phrases = StringList(ds[i]["phrases"], di.Key("phrases"), false);
        d.why = std::string(Trim(RequiredString(ds[i], "why", di)));
        d.when = ds[i]["when"] ? ParseWhen(ds[i], di) : When::kAny;
        body->deductions.push_back(std::move(d));
      }
    }
    body->critical_errors = ParseCriticalRules(root["critical_errors"], top.Key("critical_errors"), env.rules, env.terminology);
    trial.body = std::move(body);
  }

  json GroundTruth(const Trial& trial) const override {
    const RubricTrial& t = trial.As<RubricTrial>();
    json categories = json::array(), items = json::array(), deductions = json::array(), critical = json::array();
    for (const auto& c : t.categories) categories.push_back({{"name", c.name}, {"label", c.label}, {"points", c.points}});
    for (const auto& item : t.items) {
      json j = {{"id", item.id}, {"category", item.category}, {"points", item.points}, {"fact", item.fact}};
      if (item.med) j["med"] = ExpectedMedJson(*item.med);
      if (!item.find.empty()) j["find"] = item.find;
      if (!item.partial.empty()) j["partial"] = item.partial;
      if (!item.incorrect.empty()) j["incorrect"] = item.incorrect;
      if (!item.required.empty()) j["requires"] = item.required;
      if (item.negated) j["assert"] = "negated";
      if (item.advice) j["assert"] = "advice";
      if (item.when != When::kCurrent) j["when"] = WhenName(item.when);
      if (item.partial_credit != RubricDefaults().partial_credit) j["partial_credit"] = item.partial_credit;
      if (item.critical) j["critical"] = true;
      items.push_back(j);
    }
    for (const auto& d : t.deductions) deductions.push_back({{"severity", d.severity}, {"phrases", d.phrases}, {"why", d.why}});
    for (const auto& r : t.critical_errors) critical.push_back(CriticalRuleJson(r));
    return {{"categories", std::move(categories)}, {"items", std::move(items)}, {"deductions", std::move(deductions)}, {"critical_errors", std::move(critical)}};
  }

  std::shared_ptr<const PreparedBody> Prepare(const Trial& trial, const Environment& env) const override {
    return std::make_shared<RubricPrepared>(trial.As<RubricTrial>(), trial, env);
  }

  std::unique_ptr<Outcome> Score(const Trial& trial, const PreparedBody& prepared, std::string_view output,
                                 GradeContext& ctx) const override {
    const RubricTrial& t = trial.As<RubricTrial>();
    const auto& p = static_cast<const RubricPrepared&>(prepared);
    const RubricRules& rr = RubricDefaults();
    auto o = std::make_unique<RubricOutcome>();
    o->note = AnalyzeText(output, p.env.rules, p.env.terminology, p.env.assertion);
    const AnalyzedText& note = o->note;

    const auto hits = p.phrases.Find(note.text);
    const MatcherStarts::Found starts = p.starts.Find(note.text.tokens);
    for (size_t i = 0; i < t.items.size(); ++i) {
      ItemResult r = t.items[i].med ? ScoreMedItem(t.items[i], note, ctx, *o)
                                    : ScoreTextItem(t.items[i], p.items[i], hits[i], p, note, starts);
      r.points = r.credit == "full" ? t.items[i].points : r.credit == "partial" ? t.items[i].points * t.items[i].partial_credit : 0;
      if (r.credit == "incorrect" && t.items[i].critical) {
        std::optional<Evidence> ev;
        if (!r.evidence.empty()) ev = r.evidence.shown.front();
        o->critical_errors.push_back({"critical_fact", "recorded incorrectly: " + t.items[i].fact, t.items[i].id, ev});
      }
      o->items.push_back(std::move(r));
    }

    // A fact recorded wrongly is not also deducted (seed 001): a deduction overlapping an
    // incorrect item's span is dropped. A deduction inside a longer phrase an item judged is that
    // item's reading ("orthostatic" of "orthostatic precautions": the longest phrase wins); but a
    // correctly credited word does not shield an unsupported addition around it ("revolver"
    // credited, "the family has taken the revolver" still invented).
    std::vector<std::pair<uint32_t, uint32_t>> wrong, judged;
    for (const auto& r : o->items) {
      judged.insert(judged.end(), r.spans.begin(), r.spans.end());
      if (r.credit == "incorrect") wrong.insert(wrong.end(), r.spans.begin(), r.spans.end());
    }
    auto exempt = [&](const Evidence& e) { return Overlaps(e, wrong) || Within(e, judged); };
    auto deduct = [&](DeductionResult d) {
      if (d.evidence && exempt(*d.evidence)) return;
      d.points = rr.severity_points.at(d.severity);
      o->deductions.push_back(std::move(d));
    };
    // The sentences of a fired deduction's mentions are that deduction's (the claims below leave
    // them alone): "Vital signs: BP 130/85, HR 90." under a vital-signs deduction is one invention.
    std::vector<std::pair<uint32_t, uint32_t>> deducted_spans;
    for (size_t i = 0; i < t.deductions.size(); ++i) {
      const RubricDeduction& d = t.deductions[i];
      bool fired = false;
      std::vector<std::pair<uint32_t, uint32_t>> spans;
      for (const auto& hit : p.deductions[i].Find(note.text, starts)) {
        Evidence e = MakeEvidence(note, hit.begin, hit.end);
        if (!Fits(d.when, e.assertion) || exempt(e)) continue;
        spans.push_back(SentenceSpan(note, hit.begin));
        if (!fired) deduct({d.severity, "trial", d.why, 0, e});  // one addition, however often repeated
        fired = true;
      }
      deducted_spans.insert(deducted_spans.end(), spans.begin(), spans.end());
    }
    std::vector<UnsupportedDrug> unsupported = FindUnsupportedDrugs(note, p.encounter, p.expected_keys, {}, ctx.validator);
    std::vector<CriticalError> invented = InventedPrescriptions(note, unsupported);
    for (const UnsupportedDrug& u : unsupported) {
      bool started = std::any_of(invented.begin(), invented.end(), [&](const CriticalError& c) {
        return c.evidence && c.evidence->start_offset == u.mention.char_begin;
      });
      std::string cls = started ? "invented_prescription" : u.kind == "phantom" ? "phantom_drug" : "unsupported_drug";
      deduct({rr.detector_severity.at(cls), cls, u.reason, 0, MakeEvidence(note, u.mention.tok_begin, u.mention.tok_end)});
    }
    // Unsupported content no deduction of the trial foresaw (claims.yaml, docs/methodology.md
    // §4), at its class's severity; what an item or a deduction already judged is left to it.
    std::vector<std::pair<uint32_t, uint32_t>> taken = judged;
    taken.insert(taken.end(), deducted_spans.begin(), deducted_spans.end());
    for (const auto& d : o->deductions)
      if (d.evidence) taken.emplace_back(d.evidence->start_offset, d.evidence->end_offset);
    std::vector<UnsupportedClaim> claims = p.claims.Find(note, taken);
    for (const UnsupportedClaim& c : claims)
      deduct({c.severity.name, "claim:" + std::string(ClaimClassName(c.claim.cls)), c.support.reason, 0, c.evidence});
    for (CriticalError& c : invented) o->critical_errors.push_back(std::move(c));
    p.critical.Score(note, o->critical_errors, starts);
    AddInventedActions(claims, o->critical_errors);

    o->category_points.assign(t.categories.size(), 0);
    for (size_t i = 0; i < t.items.size(); ++i) {
      o->earned += o->items[i].points;
      for (size_t c = 0; c < t.categories.size(); ++c)
        if (t.categories[c].name == t.items[i].category) o->category_points[c] += o->items[i].points;
    }
    for (const auto& d : o->deductions) o->deducted += d.points;
    o->total = std::max(0.0, o->earned - o->deducted);
    o->score_total = Round4(o->total / rr.total_points);
    return o;
  }

  void Render(const Trial& trial, const Outcome& outcome, JsonWriter& w) const override {
    const RubricTrial& t = trial.As<RubricTrial>();
    const auto& o = static_cast<const RubricOutcome&>(outcome);
    const RubricRules& rr = RubricDefaults();
    auto fraction = [&](const std::string& name) {
      for (size_t c = 0; c < t.categories.size(); ++c)
        if (t.categories[c].name == name) return t.categories[c].points > 0 ? Round4(o.category_points[c] / t.categories[c].points) : 1.0;
      return 1.0;
    };
    size_t full = 0, partial = 0, absent = 0, incorrect = 0;
    for (const ItemResult& r : o.items) {
      full += r.credit == "full";
      partial += r.credit == "partial";
      absent += r.credit == "absent";
      incorrect += r.credit == "incorrect";
    }
    // Members in key order.
    const std::pair<const char*, size_t> counts[] = {
        {"critical_errors", o.critical_errors.size()}, {"deductions", o.deductions.size()}, {"items", t.items.size()},
        {"items_absent", absent}, {"items_full", full}, {"items_incorrect", incorrect}, {"items_partial", partial}};
    w.Key("counts");
    w.BeginObject();
    for (const auto& [key, n] : counts) {
      w.Key(key);
      w.Uint(n);
    }
    w.EndObject();

    w.Key("rubric");
    w.BeginObject();
    w.Key("categories");
    w.BeginArray();
    for (size_t c = 0; c < t.categories.size(); ++c) {
      w.BeginObject();
      w.Key("label");
      w.String(t.categories[c].label);
      w.Key("max");
      w.Double(t.categories[c].points);
      w.Key("name");
      w.String(t.categories[c].name);
      w.Key("points");
      w.Double(Round4(o.category_points[c]));
      w.EndObject();
    }
    w.EndArray();
    w.Key("deducted");
    w.Double(Round4(o.deducted));
    w.Key("deductions");
    w.BeginArray();
    for (const auto& d : o.deductions) {
      w.BeginObject();
      w.Key("evidence");
      if (d.evidence) WriteEvidence(w, *d.evidence);
      else w.Null();
      w.Key("key");
      if (d.evidence) w.Concat({d.source, ":", std::to_string(d.evidence->start_offset)});
      else w.Concat({d.source, ":-"});
      w.Key("points");
      w.Double(d.points);
      w.Key("severity");
      w.String(d.severity);
      w.Key("source");
      w.String(d.source);
      w.Key("why");
      w.String(d.why);
      w.EndObject();
    }
    w.EndArray();
    w.Key("earned");
    w.Double(Round4(o.earned));
    w.Key("items");
    w.BeginArray();
    for (size_t i = 0; i < t.items.size(); ++i) {
      const ItemResult& r = o.items[i];
      w.BeginObject();
      w.Key("category");
      w.String(t.items[i].category);
      w.Key("credit");
      w.String(r.credit);
      WriteEvidenceMembers(w, r.evidence);
      w.Key("fact");
      w.String(t.items[i].fact);
      w.Key("id");
      w.String(t.items[i].id);
      w.Key("key");
      w.String(t.items[i].id);
      w.Key("max");
      w.Double(t.items[i].points);
      w.Key("points");
      w.Double(Round4(r.points));
      w.Key("why");
      w.String(r.why);
      w.EndObject();
    }
    w.EndArray();
    w.Key("max");
    w.Double(rr.total_points);
    w.Key("methodology_version");
    w.String(rr.methodology_version);
    w.Key("total");
    w.Double(Round4(o.total));
    w.EndObject();

    // The seed-000 fields, for clients that read them (docs/methodology.md, "Kind rubric").
    w.Key("score_drug");
    w.Double(fraction("medication_treatment"));
    w.Key("score_fabrication");
    w.Double(Round4(std::max(0.0, 1.0 - o.deducted / rr.total_points)));
    w.Key("score_mental");
    w.Double(fraction("safety_risk"));
  }

  std::string methodology_version(const Rules&) const override { return RubricDefaults().methodology_version; }

  // Critical errors, then deductions (largest first), then checklist items not credited.
  std::vector<std::string> Reasons(const json& result, size_t limit) const override {
    std::vector<std::string> out = Kind::Reasons(result, limit);
    if (!result.contains("rubric") || !result["rubric"].is_object()) return out;
    const json& r = result["rubric"];
    std::vector<const json*> deductions;
    if (r.contains("deductions") && r["deductions"].is_array())
      for (const json& d : r["deductions"])
        if (d.is_object()) deductions.push_back(&d);
    std::stable_sort(deductions.begin(), deductions.end(),
                     [](const json* a, const json* b) { return a->value("points", 0.0) > b->value("points", 0.0); });
    char points[32];
    for (const json* d : deductions) {
      if (out.size() >= limit) return out;
      std::snprintf(points, sizeof points, "%g", d->value("points", 0.0));
      out.push_back("-" + std::string(points) + " " + d->value("severity", "") + ": " + d->value("why", ""));
    }
    if (r.contains("items") && r["items"].is_array())
      for (const json& i : r["items"]) {
        if (out.size() >= limit) return out;
        std::string credit = i.is_object() ? i.value("credit", "") : "";
        if (credit == "absent" || credit == "incorrect" || credit == "partial")
          out.push_back(credit + ": " + i.value("fact", ""));
      }
    return out;
  }

  json Methodology() const override {
    json m = RubricDefaults().published;
    m["kind"] = "rubric";
    m["description"] = description();
    return m;
  }

 private:
  // The credit of a phrase fact.
  static ItemResult ScoreTextItem(const RubricItem& item, const ItemMatcher& m, const std::vector<ItemHit>& hits,
                                  const RubricPrepared& p, const AnalyzedText& note,
                                  const MatcherStarts::Found& starts) {
    const auto& toks = note.text.tokens;
    auto other_qualifier = [&](const ItemHit& hit) {
      // "denies active SI" is about another thing than "passive suicidal ideation"
      if (m.qualifiers.empty() || hit.begin == 0) return false;
      const Token& before = toks[hit.begin - 1];
      return before.kind == TokenKind::kWord && p.qualifiers.count(before.norm) &&
             std::find(m.qualifiers.begin(), m.qualifiers.end(), before.norm) == m.qualifiers.end();
    };
    // Advice and warnings are written as conditions and risks ("raises the risk of bleeding", "if
    // the headaches return"): a hypothetical mention records them as well as an affirmed one.
    auto correct = [&](Assertion a) {
      if (item.negated) return a == Assertion::kNegated;
      if (item.advice && a == Assertion::kHypothetical) return true;
      return Fits(item.when, a);
    };
    auto opposite = [&](Assertion a) { return item.negated ? ForPatient(a) : a == Assertion::kNegated; };
    // "No other firearms", "no additional medications": the denial is about other things than
    // the ones the note already recorded, never a contradiction of them.
    auto about_others = [&](const ItemHit& hit, Assertion a) {
      if (item.negated || a != Assertion::kNegated || hit.begin == 0) return false;
      const Token& before = toks[hit.begin - 1];
      return before.kind == TokenKind::kWord && RubricDefaults().other_words.count(before.norm) > 0;
    };
    ItemResult r;
    std::vector<Evidence> right, wrong, vague;
    for (const ItemHit& hit : hits) {
      Evidence e = MakeEvidence(note, hit.begin, hit.end);
      if (about_others(hit, e.assertion)) continue;
      switch (hit.list) {
        case ListKind::kFind:
          if (other_qualifier(hit)) break;
          if (correct(e.assertion)) right.push_back(e);
          else if (opposite(e.assertion)) wrong.push_back(e);
          break;
        case ListKind::kIncorrect:
          if (ForPatient(e.assertion)) wrong.push_back(e);
          break;
        case ListKind::kPartial:
          if (other_qualifier(hit)) break;
          if (correct(e.assertion)) vague.push_back(e);
          else if (opposite(e.assertion)) wrong.push_back(e);
          break;
      }
    }
    auto take = [&](const std::vector<Evidence>& list) {
      for (const Evidence& e : list) {
        r.spans.emplace_back(e.start_offset, e.end_offset);
        r.evidence.Add(e);
      }
    };
    if (!wrong.empty()) {
      r.credit = "incorrect";
      take(wrong);
      r.why = "present but wrong: \"" + wrong.front().text + "\" (" + std::string(AssertionName(wrong.front().assertion)) + ")";
      return r;
    }
    if (!right.empty()) {
      std::vector<size_t> missing;
      for (size_t g = 0; g < m.required.size(); ++g) {
        bool present = false;
        for (const auto& hit : m.required[g].Find(note.text, starts))
          if (AssertionAnalyzer::Resolve(note.assertion_bits, hit.begin, hit.end) != Assertion::kFamily) present = true;
        if (!present) missing.push_back(g);
      }
      take(right);
      if (missing.empty()) {
        r.credit = "full";
        r.why = "present and correct: \"" + right.front().text + "\"";
      } else {
        r.credit = "partial";
        r.why = "present but incomplete: nothing on " + Quote(item.required[missing.front()].front());
      }
      return r;
    }
    if (!vague.empty()) {
      r.credit = "partial";
      take(vague);
      r.why = "present but vague: \"" + vague.front().text + "\"";
      return r;
    }
    r.why = "not found in the note";
    return r;
  }

  // The credit of a medication fact, through the drug matcher.
  static ItemResult ScoreMedItem(const RubricItem& item, const AnalyzedText& note, GradeContext& ctx, RubricOutcome& o) {
    const ExpectedMed& med = *item.med;
    ItemResult r;
    Credit equal{0.2, 0.2, 0.2, 0.2, 0.2};  // the best mention is the one with most components right
    MedResult m = ScoreMed(med, equal, note, ctx.validator);
    if (auto err = DoseMagnitudeError(med, note)) o.critical_errors.push_back(std::move(*err));
    if (!m.found) {
      // Documented only as not taken ("not on sertraline") when the fact is that it is: wrong.
      for (const DrugMention& d : note.drugs)
        if (SameDrug(med, d) && d.assertion == Assertion::kNegated && med.action != std::string("stop")) {
          Evidence e = MakeEvidence(note, d.tok_begin, d.tok_end);
          r.credit = "incorrect";
          r.why = "present but wrong: " + m.missing_why;
          r.spans.emplace_back(e.start_offset, e.end_offset);
          r.evidence.Add(e);
          return r;
        }
      r.why = m.missing_why;
      return r;
    }
    Evidence e = MakeEvidence(note, m.found->tok_begin, m.found->tok_end);
    r.spans.emplace_back(e.start_offset, e.end_offset);
    r.evidence.Add(e);
    const MedCheck* contradicted = nullptr;
    const MedCheck* missing = nullptr;
    for (const MedCheck& c : m.checks) {
      if (c.pass) continue;
      if (c.found && !contradicted) contradicted = &c;
      if (!c.found && !missing) missing = &c;
    }
    if (contradicted) {
      r.credit = "incorrect";
      r.why = "present but wrong " + contradicted->part + ": " + contradicted->why;
    } else if (missing) {
      r.credit = "partial";
      r.why = "present but incomplete: " + missing->why;
    } else {
      r.credit = "full";
      r.why = "present and correct: " + (m.found->drug.empty() ? m.found->mention : m.found->drug);
    }
    return r;
  }
};

}  // namespace

double SeverityPoints(const std::string& severity) { return RubricDefaults().severity_points.at(severity); }

const Kind& RubricKind() {
  static Rubric kind;
  return kind;
}

}  // namespace scribe
