// claims_check.cpp — see claims_check.h.
#include "claims_check.h"

#include <algorithm>
#include <set>

namespace scribe {

namespace {

bool Overlaps(uint32_t b, uint32_t e, const std::vector<std::pair<uint32_t, uint32_t>>& spans) {
  for (const auto& [sb, se] : spans)
    if (b < se && sb < e) return true;
  return false;
}

}  // namespace

ClaimCheck::ClaimCheck(const AnalyzedText& encounter) : index_(encounter, DefaultClaimFinder()) {}

std::vector<UnsupportedClaim> ClaimCheck::Find(const AnalyzedText& note,
                                               const std::vector<std::pair<uint32_t, uint32_t>>& exempt) const {
  const ClaimFinder& finder = DefaultClaimFinder();
  std::vector<UnsupportedClaim> out;
  std::set<std::pair<ClaimClass, std::string>> seen;
  for (Claim& c : finder.Find(note)) {
    if (Overlaps(c.char_begin, c.char_end, exempt)) continue;
    // A mental status is observed in every conversation and a transcript cannot show it ("thought
    // process linear", "appropriate mood and affect"): the grade never judges it.
    if (c.cls == ClaimClass::kExam && c.subject == "psychiatric") continue;
    if (seen.count({c.cls, c.subject})) continue;
    ClaimSupport s = index_.Check(c);
    if (s.supported) continue;
    seen.insert({c.cls, c.subject});
    Evidence e = MakeEvidence(note, c.tok_begin, c.tok_end);
    e.assertion = c.assertion;
    Severity sev = finder.SeverityOf(c.cls);
    out.push_back({std::move(c), std::move(s), std::move(sev), std::move(e)});
  }
  return out;
}

void AddInventedActions(const std::vector<UnsupportedClaim>& claims, std::vector<CriticalError>& errors) {
  std::vector<std::pair<uint32_t, uint32_t>> reported;
  for (const CriticalError& e : errors)
    if (e.evidence) reported.emplace_back(e.evidence->start_offset, e.evidence->end_offset);
  for (const UnsupportedClaim& c : claims) {
    if (c.severity.name != "critical" || Overlaps(c.evidence.start_offset, c.evidence.end_offset, reported)) continue;
    errors.push_back({"invented_action",
                      "documents " + std::string(ClaimClassName(c.claim.cls)) + " (" + c.claim.subject +
                          ") that did not happen: " + c.support.reason,
                      "", c.evidence});
  }
}

std::pair<uint32_t, uint32_t> SentenceSpan(const AnalyzedText& note, size_t tok) {
  const auto& sb = note.text.sentence_begin;
  const auto& se = note.text.sentence_end;
  auto it = std::upper_bound(sb.begin(), sb.end(), static_cast<uint32_t>(tok));
  if (it == sb.begin()) return {0, 0};
  size_t s = static_cast<size_t>(it - sb.begin()) - 1;
  if (se[s] <= sb[s]) return {0, 0};
  return {note.text.tokens[sb[s]].char_begin, note.text.tokens[se[s] - 1].char_end};
}

std::pair<uint32_t, uint32_t> SentenceSpanAt(const AnalyzedText& note, uint32_t char_offset) {
  const auto& toks = note.text.tokens;
  auto it = std::lower_bound(toks.begin(), toks.end(), char_offset,
                             [](const Token& t, uint32_t c) { return t.char_begin < c; });
  if (it == toks.end()) return {0, 0};
  return SentenceSpan(note, static_cast<size_t>(it - toks.begin()));
}

void WriteUnsupportedClaim(JsonWriter& w, const UnsupportedClaim& c) {
  w.BeginObject();
  w.Key("class");
  w.String(ClaimClassName(c.claim.cls));
  if (!c.support.evidence.empty()) {
    w.Key("encounter");
    w.String(c.support.evidence);
  }
  w.Key("evidence");
  WriteEvidence(w, c.evidence);
  w.Key("key");
  w.Concat({"claim:", std::to_string(c.evidence.start_offset)});
  w.Key("reason");
  w.String(c.support.reason);
  w.Key("severity");
  w.String(c.severity.name);
  w.Key("subject");
  w.String(c.claim.subject);
  if (!c.claim.value.empty()) {
    w.Key("value");
    w.String(c.claim.value);
  }
  w.EndObject();
}

}  // namespace scribe
