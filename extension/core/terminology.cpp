// terminology.cpp — offline RxNorm lookup (see terminology.h).
#include "terminology.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "embedded.h"
#include "rules.h"

namespace scribe {
namespace {

constexpr size_t kMaxNameWords = 6;
constexpr size_t kMinApproximateLength = 6;

// No single-word drug name is longer than this; longer words are never approximated (the
// delete variants of a 1,000-letter word would take gigabytes).
constexpr size_t kMaxApproximateLength = 32;

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) { h ^= c; h *= 1099511628211ULL; }
  return h;
}

// Every string obtained by deleting up to `d` characters of w (including w itself).
void DeleteVariants(const std::string& w, int d, std::vector<std::string>& out) {
  out.push_back(w);
  if (d == 0 || w.size() <= 1) return;
  for (size_t i = 0; i < w.size(); ++i) {
    std::string shorter = w.substr(0, i) + w.substr(i + 1);
    DeleteVariants(shorter, d - 1, out);
  }
}

bool AllLetters(std::string_view w) {
  for (char c : w)
    if (!(c >= 'a' && c <= 'z')) return false;
  return !w.empty();
}

int TtyRank(const std::string& tty) {
  if (tty == "IN") return 0;
  if (tty == "PIN") return 1;
  if (tty == "MIN") return 2;
  if (tty == "BN") return 3;
  if (tty == "CLASS") return 5;
  return 4;
}

bool NumericLess(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

// Words of `name` that are not words of `base` ("metoprolol tartrate" - "metoprolol" = "tartrate"),
// or all of `name` when it does not contain `base` ("divalproex sodium" for valproate).
std::string ExtraWords(const std::string& name, const std::string& base) {
  std::vector<std::string> base_words = PhraseWords(base), words = PhraseWords(name);
  for (const std::string& w : base_words)
    if (std::find(words.begin(), words.end(), w) == words.end()) return NormalizePhrase(name);
  std::string out;
  for (const std::string& w : words) {
    if (std::find(base_words.begin(), base_words.end(), w) != base_words.end()) continue;
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

void ReadLines(std::string_view data, const std::function<void(int, std::string_view)>& fn) {
  int line_no = 0;
  for (std::string_view line : Split(data, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line_no, line);
  }
}

}  // namespace

int ApproximateMaxDistance(size_t length) {
  if (length > kMaxApproximateLength) return 0;
  return length >= 10 ? 2 : length >= kMinApproximateLength ? 1 : 0;
}

std::string_view MatchKindName(MatchKind k) {
  switch (k) {
    case MatchKind::kExact: return "exact";
    case MatchKind::kNormalized: return "normalized";
    case MatchKind::kSynonym: return "synonym";
    case MatchKind::kApproximate: return "approximate";
  }
  return "exact";
}

int EditDistance(std::string_view a, std::string_view b, int max_distance) {
  const size_t n = a.size(), m = b.size();
  if (static_cast<int>(n > m ? n - m : m - n) > max_distance) return max_distance + 1;
  std::vector<int> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<int>(i);
    int row_min = cur[0];
    for (size_t j = 1; j <= m; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > max_distance) return max_distance + 1;
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return std::min(prev[m], max_distance + 1);
}

void Terminology::Index(uint32_t id, const std::string& normalized) {
  if (normalized.empty()) return;
  auto& ids = by_name_[normalized];
  if (std::find(ids.begin(), ids.end(), id) != ids.end()) return;
  ids.push_back(id);
  // keep the preferred concept first: IN, PIN, MIN, BN; RxNorm rows before supplements
  std::stable_sort(ids.begin(), ids.end(), [&](uint32_t x, uint32_t y) {
    int rx = TtyRank(concepts_[x].tty), ry = TtyRank(concepts_[y].tty);
    if (rx != ry) return rx < ry;
    return !concepts_[x].rxcui.empty() && concepts_[y].rxcui.empty();
  });
  preferred_[normalized] = ids.front();
  preferred_bits_.Add(HashWord(normalized));
  size_t words = std::count(normalized.begin(), normalized.end(), ' ') + 1;
  std::string first = normalized.substr(0, normalized.find(' '));
  uint8_t& longest = first_words_[first];
  first_word_bits_.Add(HashWord(first));
  longest = static_cast<uint8_t>(std::max<size_t>(longest, std::min(words, kMaxNameWords)));
}

Terminology Terminology::Load(std::string_view concepts_tsv, std::string_view synonyms_tsv,
                              std::string_view dose_forms_tsv, std::string_view english_words,
                              std::string_view ambiguous_brands, std::string_view version_file,
                              std::string_view name_noise, const std::vector<std::string>& non_rxnorm_substances) {
  Terminology t;
  std::unordered_map<std::string, std::string> ingredient_by_name;
  ReadLines(concepts_tsv, [&](int line_no, std::string_view line) {
    if (line_no == 1 || Trim(line).empty()) return;  // header
    auto f = Split(line, '\t');
    if (f.size() < 5) throw std::runtime_error("concepts.tsv:" + std::to_string(line_no) + ": expected 5 columns");
    Concept c{std::string(f[0]), std::string(f[1]), std::string(f[2]), std::string(f[4]), {}};
    for (std::string_view r : Split(f[3], '|'))
      if (!r.empty()) c.ingredients.emplace_back(r);
    if (c.ingredients.empty()) return;
    if (c.tty == "IN") {
      t.ingredients_[c.rxcui] = IngredientInfo{c.rxcui, c.name, {}, {}};
      ingredient_by_name[Lower(c.name)] = c.rxcui;
    }
    t.concepts_.push_back(std::move(c));
  });
  ReadLines(synonyms_tsv, [&](int line_no, std::string_view line) {
    if (line_no == 1 || Trim(line).empty()) return;
    auto f = Split(line, '\t');
    if (f.size() < 2) throw std::runtime_error("synonyms.tsv:" + std::to_string(line_no) + ": expected 2 columns");
    Concept c{"", "SY", std::string(f[0]), "synonym", {}};
    for (std::string_view name : Split(f[1], '|')) {
      auto it = ingredient_by_name.find(Lower(Trim(name)));
      if (it == ingredient_by_name.end())
        throw std::runtime_error("synonyms.tsv:" + std::to_string(line_no) + ": unknown ingredient '" + std::string(name) + "'");
      c.ingredients.push_back(it->second);
    }
    std::sort(c.ingredients.begin(), c.ingredients.end(),
              [](const std::string& a, const std::string& b) { return std::stoll(a) < std::stoll(b); });
    t.concepts_.push_back(std::move(c));
  });
  for (uint32_t id = 0; id < t.concepts_.size(); ++id) {
    t.concepts_[id].norm = NormalizePhrase(t.concepts_[id].name);
    t.Index(id, t.concepts_[id].norm);
  }

  ReadLines(dose_forms_tsv, [&](int line_no, std::string_view line) {
    if (line_no == 1 || Trim(line).empty()) return;
    auto f = Split(line, '\t');
    if (f.size() < 3) return;
    auto it = t.ingredients_.find(std::string(f[0]));
    if (it == t.ingredients_.end()) return;
    for (std::string_view v : Split(f[1], '|')) if (!v.empty()) it->second.dose_forms.emplace_back(v);
    for (std::string_view v : Split(f[2], '|')) if (!v.empty()) it->second.strengths.emplace_back(v);
  });
  ReadLines(english_words, [&](int, std::string_view line) {
    line = Trim(line);
    if (!line.empty() && line.front() != '#') t.known_words_.insert(line);
  });
  ReadLines(ambiguous_brands, [&](int, std::string_view line) {
    line = Trim(line);
    if (!line.empty() && line.front() != '#') t.ambiguous_.insert(NormalizePhrase(line));
  });
  ReadLines(name_noise, [&](int, std::string_view line) {
    line = Trim(line);
    if (!line.empty() && line.front() != '#') t.noise_.emplace(line);
  });
  for (const std::string& s : non_rxnorm_substances) t.non_rxnorm_[s] = 1;
  ReadLines(version_file, [&](int, std::string_view line) {
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return;
    std::string_view key = Trim(line.substr(0, eq)), value = Trim(line.substr(eq + 1));
    if (key == "terminology") t.version_ = std::string(value);
    if (key == "rxnorm_release") t.release_date_ = std::string(value);
  });
  return t;
}

const std::vector<std::pair<uint64_t, uint32_t>>& Terminology::Deletes() const {
  std::call_once(index_->once, [this] { const_cast<Terminology*>(this)->BuildApproximateIndex(); });
  return index_->deletes;
}

void Terminology::BuildApproximateIndex() {
  auto& deletes_ = index_->deletes;
  std::vector<std::string> variants;
  for (const auto& [name, ids] : by_name_) {
    if (name.find(' ') != std::string::npos || name.size() < kMinApproximateLength || !AllLetters(name)) continue;
    if (ambiguous_.contains(name)) continue;
    const Concept& c = concepts_[ids.front()];
    if (c.tty != "IN" && c.tty != "BN" && c.tty != "SY" && c.tty != "CLASS") continue;
    variants.clear();
    DeleteVariants(name, ApproximateMaxDistance(name.size()), variants);
    std::sort(variants.begin(), variants.end());
    variants.erase(std::unique(variants.begin(), variants.end()), variants.end());
    for (const std::string& v : variants) deletes_.emplace_back(Fnv1a(v), ids.front());
  }
  std::sort(deletes_.begin(), deletes_.end());
  deletes_.erase(std::unique(deletes_.begin(), deletes_.end()), deletes_.end());
}

std::optional<TermMatch> Terminology::Approximate(std::string_view word_in) const {
  // The word in lower case: a token's norm already is, and is read in place.
  std::string lowered;
  std::string_view word = word_in;
  if (std::any_of(word_in.begin(), word_in.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) word = lowered = Lower(word_in);
  if (ApproximateMaxDistance(word.size()) == 0 || !AllLetters(word)) return std::nullopt;
  const uint64_t hash = HashWord(word);
  {
    std::shared_lock<std::shared_mutex> reading(memo_->mu);
    if (const std::optional<TermMatch>* known = memo_->answers.find(word, hash)) return *known;
  }
  std::optional<TermMatch> answer = ApproximateUncached(std::string(word));
  std::unique_lock<std::shared_mutex> writing(memo_->mu);
  if (memo_->answers.size() >= kApproximateMemoWords) memo_->answers.clear();
  memo_->answers[word] = answer;
  return answer;
}

std::optional<TermMatch> Terminology::ApproximateUncached(const std::string& word) const {
  int max_d = ApproximateMaxDistance(word.size());
  const auto& deletes_ = Deletes();
  std::vector<std::string> variants;
  DeleteVariants(word, max_d, variants);
  int best_d = max_d + 1;
  std::vector<uint32_t> best;
  for (const std::string& v : variants) {
    uint64_t h = Fnv1a(v);
    auto lo = std::lower_bound(deletes_.begin(), deletes_.end(), std::make_pair(h, uint32_t{0}));
    for (auto it = lo; it != deletes_.end() && it->first == h; ++it) {
      const std::string& target = concepts_[it->second].norm;
      if (target.empty() || target[0] != word[0]) continue;
      int d = EditDistance(word, target, std::min(max_d, ApproximateMaxDistance(target.size())));
      if (d > std::min(max_d, ApproximateMaxDistance(target.size())) || d == 0) continue;
      if (d < best_d) { best_d = d; best.clear(); }
      if (d == best_d && std::find(best.begin(), best.end(), it->second) == best.end()) best.push_back(it->second);
    }
  }
  if (best.empty()) return std::nullopt;
  // Unique best: every best candidate must name the same ingredient set.
  std::string key = IngredientKey(best.front());
  for (uint32_t id : best)
    if (IngredientKey(id) != key) return std::nullopt;
  std::sort(best.begin(), best.end(), [&](uint32_t x, uint32_t y) { return TtyRank(concepts_[x].tty) < TtyRank(concepts_[y].tty); });
  return TermMatch{best.front(), MatchKind::kApproximate, best_d, 1};
}

std::optional<TermMatch> Terminology::Lookup(std::string_view term) const {
  std::string exact = NormalizePhrase(term);
  if (exact.empty()) return std::nullopt;
  if (auto it = by_name_.find(exact); it != by_name_.end()) {
    uint32_t id = it->second.front();
    return TermMatch{id, concepts_[id].tty == "SY" ? MatchKind::kSynonym : MatchKind::kExact, 0, 0};
  }
  // drop salt, formulation and strength words, and numbers
  std::string stripped;
  for (const std::string& w : PhraseWords(term)) {
    if (noise_.count(w)) continue;
    if (!w.empty() && ((w[0] >= '0' && w[0] <= '9') || w[0] == '.')) continue;
    if (w.size() == 1 && !(w[0] >= 'a' && w[0] <= 'z')) continue;
    if (!stripped.empty()) stripped += ' ';
    stripped += w;
  }
  if (!stripped.empty() && stripped != exact) {
    if (auto it = by_name_.find(stripped); it != by_name_.end()) {
      uint32_t id = it->second.front();
      return TermMatch{id, MatchKind::kNormalized, 0, 0};
    }
  }
  const std::string& candidate = stripped.empty() ? exact : stripped;
  if (candidate.find(' ') == std::string::npos) return Approximate(candidate);
  return std::nullopt;
}

std::optional<TermMatch> Terminology::MatchTokens(const std::vector<Token>& toks, size_t k, size_t limit) const {
  const Token& first = toks[k];
  if (first.kind != TokenKind::kWord) return std::nullopt;
  const uint64_t first_hash = NormHash(first);
  const uint8_t* longest = first_word_bits_.MayHold(first_hash) ? first_words_.find(first.norm, first_hash) : nullptr;
  if (longest) {
    // gather up to *longest words (hyphens skipped, other punctuation stops); ends[n - 1] is
    // where the joined name of n words ends in `joined`, hashes[n - 1] its HashWord (continued
    // word by word from the first word's norm_hash), idx[n - 1] its last token
    size_t idx[kMaxNameWords + 1], ends[kMaxNameWords + 1];
    uint64_t hashes[kMaxNameWords + 1];
    size_t words = 0, length = 0;
    uint64_t hash = 0;
    for (size_t p = k; p < limit && words < *longest && words <= kMaxNameWords; ++p) {
      const Token& t = toks[p];
      if (t.kind == TokenKind::kPunct) {
        if (IsPunct(t, '-') && words > 0) continue;
        break;
      }
      length += (words > 0 ? 1 : 0) + t.norm.size();
      hash = words == 0 ? NormHash(t) : HashWordAppend(HashWordStep(hash, ' '), t.norm);
      idx[words] = p;
      ends[words] = length;
      hashes[words] = hash;
      ++words;
    }
    // The words joined by spaces, written only when a name's hash may be a preferred name's.
    std::string joined;
    for (size_t n = words; n > 0; --n) {
      if (!preferred_bits_.MayHold(hashes[n - 1])) continue;
      if (joined.empty()) {
        joined.reserve(length);
        for (size_t w = 0; w < words; ++w) {
          if (w > 0) joined += ' ';
          joined += toks[idx[w]].norm;
        }
      }
      std::string_view name = std::string_view(joined).substr(0, ends[n - 1]);
      const uint32_t* preferred = preferred_.find(name, hashes[n - 1]);
      if (!preferred) continue;
      size_t end = idx[n - 1] + 1;
      const Concept& c = concepts_[*preferred];
      if (c.tty == "BN" && std::count_if(name.begin(), name.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; }) < 3)
        continue;
      if (ambiguous_.contains(name, hashes[n - 1])) {
        // An everyday word ("Today", "iron"): only a drug when a dose follows it directly.
        bool dose_follows = end < limit && toks[end].kind == TokenKind::kNumber;
        if (!dose_follows) continue;
      }
      uint32_t id = *preferred;
      return TermMatch{id, concepts_[id].tty == "SY" ? MatchKind::kSynonym : MatchKind::kExact, 0, end - k};
    }
  }
  // Approximate: a word that is neither a drug, nor English, nor clinical vocabulary.
  if (first.norm.size() >= kMinApproximateLength && !first.all_caps && !IsKnownWord(first) &&
      !IsNonRxnormSubstance(first)) {
    if (auto m = Approximate(first.norm)) {
      m->token_count = 1;
      return m;
    }
  }
  return std::nullopt;
}

std::string Terminology::ExactIngredient(std::string_view name) const {
  auto it = by_name_.find(NormalizePhrase(name));
  if (it == by_name_.end()) return {};
  for (uint32_t id : it->second)
    if (concepts_[id].ingredients.size() == 1) return concepts_[id].ingredients.front();
  return {};
}

void Terminology::LoadEquivalents(std::string_view equivalents_tsv) {
  derived_->of.clear();  // canonical ingredients change keys, names and salts
  ReadLines(equivalents_tsv, [&](int line_no, std::string_view line) {
    if (Trim(line).empty() || Trim(line).front() == '#') return;
    auto f = Split(line, '\t');
    auto fail = [&](const std::string& what) {
      throw std::runtime_error("equivalents.tsv:" + std::to_string(line_no) + ": " + what);
    };
    if (f.size() < 2) fail("expected canonical name, equivalent name");
    std::string canonical = ExactIngredient(Trim(f[0])), member = ExactIngredient(Trim(f[1]));
    if (canonical.empty()) fail("'" + std::string(Trim(f[0])) + "' is not an ingredient of the terminology");
    if (member.empty()) fail("'" + std::string(Trim(f[1])) + "' is not an ingredient of the terminology");
    canonical = CanonicalIngredient(canonical);
    if (CanonicalIngredient(member) != member && CanonicalIngredient(member) != canonical)
      fail("'" + std::string(Trim(f[1])) + "' is already equivalent to another ingredient");
    if (member != canonical) canonical_[member] = canonical;
    if (f.size() > 2 && Trim(f[2]) == "salt") salt_equivalents_.insert(member);
    display_[canonical] = std::string(Trim(f[0]));
  });
}

void Terminology::LoadAllergenClasses(std::string_view classes_yaml, std::string_view members_tsv) {
  derived_->of.clear();  // a class's display name is its concepts' ingredient names
  YAML::Node root = YAML::Load(std::string(classes_yaml));
  YAML::Node classes = root["classes"];
  if (!classes || !classes.IsMap()) throw std::runtime_error("allergen_classes.yaml: missing mapping 'classes'");
  for (const auto& entry : classes) {
    AllergenClass c;
    c.id = entry.first.as<std::string>();
    const YAML::Node& body = entry.second;
    c.display = body["display"] ? body["display"].as<std::string>() : c.id;
    if (body["names"])
      for (const auto& n : body["names"]) c.names.push_back(n.as<std::string>());
    if (body["prescribed_as"]) {
      std::string rxcui = ExactIngredient(body["prescribed_as"].as<std::string>());
      if (rxcui.empty())
        throw std::runtime_error("allergen_classes.yaml: " + c.id + ": prescribed_as '" +
                                 body["prescribed_as"].as<std::string>() + "' is not an ingredient");
      c.prescribed_as = CanonicalIngredient(rxcui);
    }
    classes_.push_back(std::move(c));
  }
  std::sort(classes_.begin(), classes_.end(), [](const AllergenClass& a, const AllergenClass& b) { return a.id < b.id; });
  for (size_t i = 0; i < classes_.size(); ++i) class_by_name_[classes_[i].id] = i;
  ReadLines(members_tsv, [&](int line_no, std::string_view line) {
    if (Trim(line).empty() || Trim(line).front() == '#' || line.substr(0, 6) == "class\t") return;
    auto f = Split(line, '\t');
    if (f.size() < 2) throw std::runtime_error("allergen_class_members.tsv:" + std::to_string(line_no) + ": expected class, rxcui");
    auto it = class_by_name_.find(std::string(f[0]));
    if (it == class_by_name_.end())
      throw std::runtime_error("allergen_class_members.tsv:" + std::to_string(line_no) + ": unknown class '" + std::string(f[0]) + "'");
    if (!ingredients_.count(std::string(f[1])))
      throw std::runtime_error("allergen_class_members.tsv:" + std::to_string(line_no) + ": unknown ingredient " + std::string(f[1]));
    classes_[it->second].members.push_back(CanonicalIngredient(std::string(f[1])));
  });
  for (size_t i = 0; i < classes_.size(); ++i) {
    AllergenClass& c = classes_[i];
    if (c.members.empty())
      throw std::runtime_error("allergen_class_members.tsv: class '" + c.id +
                               "' has no members (run scripts/derive_allergen_classes.py)");
    std::sort(c.members.begin(), c.members.end(), NumericLess);
    c.members.erase(std::unique(c.members.begin(), c.members.end()), c.members.end());
    for (const std::string& name : c.names) {
      std::string norm = NormalizePhrase(name);
      if (auto it = by_name_.find(norm); it != by_name_.end() && concepts_[it->second.front()].tty != "CLASS")
        throw std::runtime_error("allergen_classes.yaml: " + c.id + ": '" + name + "' is already a drug name");
      class_by_name_[norm] = i;
      Concept k{"", "CLASS", name, "allergen-classes", {}, norm, c.id};
      concepts_.push_back(std::move(k));
      Index(static_cast<uint32_t>(concepts_.size() - 1), norm);
    }
  }
}

const std::string& Terminology::CanonicalIngredient(const std::string& rxcui) const {
  auto it = canonical_.find(rxcui);
  return it == canonical_.end() ? rxcui : it->second;
}

const Terminology::DerivedWords& Terminology::Derived(uint32_t id) const {
  {
    std::shared_lock<std::shared_mutex> reading(derived_->mu);
    if (auto it = derived_->of.find(id); it != derived_->of.end()) return it->second;
  }
  DerivedWords words{ComputeIngredientKey(id), ComputeIngredientNames(id), ComputeSaltOf(id)};
  std::unique_lock<std::shared_mutex> writing(derived_->mu);
  return derived_->of.try_emplace(id, std::move(words)).first->second;  // a racing thread's equal entry stays
}

std::string Terminology::IngredientKey(uint32_t id) const { return Derived(id).key; }
std::string Terminology::IngredientNames(uint32_t id) const { return Derived(id).names; }
std::string Terminology::SaltOf(uint32_t id) const { return Derived(id).salt; }

std::string Terminology::ComputeIngredientKey(uint32_t id) const {
  const Concept& c = concepts_[id];
  if (c.tty == "CLASS") return "class:" + c.drug_class;
  std::vector<std::string> ids;
  for (const std::string& r : c.ingredients) ids.push_back(CanonicalIngredient(r));
  std::sort(ids.begin(), ids.end(), NumericLess);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string key;
  for (const std::string& r : ids) {
    if (!key.empty()) key += '+';
    key += r;
  }
  return key;
}

std::string Terminology::ComputeSaltOf(uint32_t id) const {
  const Concept& c = concepts_[id];
  if ((c.tty != "PIN" && c.tty != "IN") || c.ingredients.size() != 1) return {};
  const std::string& canonical = CanonicalIngredient(c.ingredients.front());
  if (c.tty == "IN" && !salt_equivalents_.count(c.ingredients.front())) return {};
  auto it = ingredients_.find(canonical);
  if (it == ingredients_.end()) return {};
  return ExtraWords(c.name, it->second.name);
}

const AllergenClass* Terminology::FindClass(std::string_view name) const {
  std::string_view id = IsClassKey(name) ? name.substr(6) : name;
  auto it = class_by_name_.find(std::string(id));
  if (it == class_by_name_.end()) it = class_by_name_.find(NormalizePhrase(id));
  return it == class_by_name_.end() ? nullptr : &classes_[it->second];
}

bool Terminology::ClassCovers(std::string_view class_name, std::string_view key) const {
  const AllergenClass* c = FindClass(class_name);
  if (!c) return false;
  if (IsClassKey(key)) return key.substr(6) == c->id;
  for (std::string_view part : Split(key, '+')) {
    std::string canonical = CanonicalIngredient(std::string(part));
    if (std::binary_search(c->members.begin(), c->members.end(), canonical, NumericLess)) return true;
  }
  return false;
}

std::vector<std::string> Terminology::ClassesOf(std::string_view key) const {
  std::vector<std::string> out;
  for (const AllergenClass& c : classes_)
    if (ClassCovers(c.id, key)) out.push_back(c.id);
  return out;
}

std::string Terminology::ComputeIngredientNames(uint32_t id) const {
  const Concept& c = concepts_[id];
  if (c.tty == "CLASS") {
    const AllergenClass* k = FindClass(c.drug_class);
    return k ? k->display : c.drug_class;
  }
  std::vector<std::string> names;
  std::vector<std::string> seen;
  for (const std::string& r : c.ingredients) {
    const std::string& canonical = CanonicalIngredient(r);
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
    seen.push_back(canonical);
    if (auto d = display_.find(canonical); d != display_.end()) { names.push_back(d->second); continue; }
    auto it = ingredients_.find(canonical);
    names.push_back(it != ingredients_.end() ? it->second.name : canonical);
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += " / ";
    out += n;
  }
  return out;
}

const IngredientInfo* Terminology::Ingredient(const std::string& rxcui) const {
  auto it = ingredients_.find(rxcui);
  return it == ingredients_.end() ? nullptr : &it->second;
}

bool Terminology::IsKnownWord(std::string_view w) const { return known_words_.contains(w); }


bool Terminology::IsNonRxnormSubstance(std::string_view normalized) const {
  return non_rxnorm_.contains(normalized);
}

const Terminology& DefaultTerminology() {
  static const Terminology terminology = [] {
    Terminology t = Terminology::Load(
        embedded_file("corpus/terminology/concepts.tsv"), embedded_file("corpus/terminology/synonyms.tsv"),
        embedded_file("corpus/terminology/dose_forms.tsv"), embedded_file("corpus/terminology/english_words.txt"),
        embedded_file("corpus/terminology/ambiguous_brands.txt"), embedded_file("corpus/terminology/VERSION"),
        embedded_file("corpus/rules/name_noise.txt"), DefaultRules().non_rxnorm_substances);
    t.LoadEquivalents(embedded_file("corpus/rules/equivalents.tsv"));
    t.LoadAllergenClasses(embedded_file("corpus/rules/allergen_classes.yaml"),
                          embedded_file("corpus/rules/allergen_class_members.tsv"));
    return t;
  }();
  return terminology;
}

}  // namespace scribe
