// validator.cpp — offline validation answers (see validator.h).
#include "validator.h"

#include <algorithm>

namespace scribe {

namespace {

void WriteStrings(JsonWriter& w, const std::vector<std::string>& list) {
  w.BeginArray();
  for (const std::string& s : list) w.String(s);
  w.EndArray();
}

}  // namespace

void Validation::Write(JsonWriter& w) const {
  w.BeginObject();
  if (found) {
    w.Key("dose_forms");
    WriteStrings(w, dose_forms);
  }
  w.Key("found");
  w.Bool(found);
  if (found) {
    w.Key("ingredient");
    w.String(ingredient);
    w.Key("ingredient_rxcuis");
    WriteStrings(w, ingredients);
    w.Key("name");
    w.String(name);
  }
  w.Key("reason");
  w.String(reason);
  if (found) {
    w.Key("routes");
    WriteStrings(w, routes);
  }
  w.Key("rxcui");
  if (found) w.StringOrNull(rxcui);
  else w.Null();
  w.Key("score");
  if (found) w.Double(score);
  else w.Int(0);  // an integer: not found has always been published as 0, not 0.0
  w.Key("source");
  w.String(source);
  if (found) {
    w.Key("strengths");
    WriteStrings(w, strengths);
  }
  w.Key("term");
  w.String(term);
  if (found) {
    w.Key("tty");
    w.String(tty);
  }
  w.EndObject();
}

Validation OfflineValidation(const Terminology& terminology, std::string_view term,
                             const std::optional<TermMatch>& local_in) {
  Validation v;
  v.term = std::string(term);
  std::optional<TermMatch> local = local_in ? local_in : terminology.Lookup(term);
  const std::string where = "offline RxNorm " + terminology.release_date();
  if (!local) {
    v.source = "none";
    v.reason = "no match for \"" + std::string(term) + "\" in " + where;
    return v;
  }
  const Concept& c = terminology.concept_at(local->concept_id);
  v.found = true;
  v.source = "local";
  v.rxcui = c.rxcui;
  v.name = c.name;
  v.tty = c.tty;
  v.ingredients = c.ingredients;
  v.ingredient = terminology.IngredientNames(local->concept_id);
  v.score = local->kind == MatchKind::kApproximate
                ? 1.0 - static_cast<double>(local->distance) / std::max<size_t>(1, NormalizePhrase(term).size())
                : 1.0;
  v.score = Round4(v.score);
  for (const std::string& r : c.ingredients) {
    if (const IngredientInfo* info = terminology.Ingredient(r)) {
      for (const auto& f : info->dose_forms)
        if (std::find(v.dose_forms.begin(), v.dose_forms.end(), f) == v.dose_forms.end()) v.dose_forms.push_back(f);
      if (c.ingredients.size() == 1) v.strengths = info->strengths;
    }
  }
  std::string ids;
  for (const std::string& r : c.ingredients) ids += (ids.empty() ? "" : ", ") + r;
  std::string what = c.tty == "BN" ? "brand " + c.name + " of " + v.ingredient
                   : c.tty == "SY" ? "synonym " + c.name + " for " + v.ingredient
                                   : c.name;
  switch (local->kind) {
    case MatchKind::kExact: v.reason = "local: exact match " + what + " (" + ids + ") in " + where; break;
    case MatchKind::kSynonym: v.reason = "local: " + what + " (" + ids + ") in " + where; break;
    case MatchKind::kNormalized: v.reason = "local: normalised \"" + std::string(term) + "\" to " + what + " (" + ids + ") in " + where; break;
    case MatchKind::kApproximate:
      v.reason = "local: approximate match \"" + std::string(term) + "\" -> " + what + " (" + ids + "), edit distance " +
                 std::to_string(local->distance) + ", in " + where;
      break;
  }
  return v;
}

Validation OfflineValidator::Validate(std::string_view term, const std::optional<TermMatch>& local) {
  return OfflineValidation(terminology_, term, local);
}

nlohmann::json OfflineValidator::Versions() {
  return {{"offline", terminology_.version()}, {"offline_release", terminology_.release_date()},
          {"rxnav", nullptr}, {"openfda", nullptr}};
}

}  // namespace scribe
