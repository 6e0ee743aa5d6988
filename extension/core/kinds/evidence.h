// evidence.h — what a result shows a reader: spans of the note with their assertion, critical
// errors, and the JSON forms of drug mentions and doses every kind publishes the same way,
// written into a result through its JsonWriter:
//
//   w.Key("found");
//   WriteMention(w, mention);   // {"action":…,"assertion":"affirmed",…,"start_offset":12}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "extract.h"
#include "json_writer.h"
#include "schema.h"

namespace scribe {

// A span of a graded text: tokens [begin, end) of an AnalyzedText, as published.
struct Evidence {
  std::string text;
  uint32_t start_offset = 0, end_offset = 0;  // code points, end exclusive
  Assertion assertion = Assertion::kAffirmed;
  std::string context;  // the sentence, when a reader needs it (trial rules)
};

Evidence MakeEvidence(const AnalyzedText& a, size_t begin, size_t end);
// {"assertion", "context" (when set), "end_offset", "start_offset", "text"}, and `flag`: `value`
// when a flag is given (a trap's "triggers", a deferred diagnosis's "asserted").
void WriteEvidence(JsonWriter& w, const Evidence& e, std::string_view flag = {}, bool value = false);

// At most this many evidence spans are published per item; the rest are counted
// ("evidence_more"), so a note that repeats a phrase 10,000 times cannot inflate its result.
constexpr size_t kMaxEvidencePerItem = 20;

// A list of spans for one item, capped at kMaxEvidencePerItem.
struct EvidenceList {
  std::vector<Evidence> shown;
  size_t more = 0;  // spans found beyond the cap
  void Add(Evidence e) {
    if (shown.size() < kMaxEvidencePerItem) shown.push_back(std::move(e));
    else ++more;
  }
  bool empty() const { return shown.empty(); }
};
// The members "evidence": [...] and, when spans were left out, "evidence_more": n, written into
// the open object.
void WriteEvidenceMembers(JsonWriter& w, const EvidenceList& list);

// Critical errors: any one labels the output "Unsafe as written".
struct CriticalError {
  std::string kind;     // contradicted_flag, dropped_allergy, …, trial_rule
  std::string message;
  std::string id;       // the trial rule's id, for kind trial_rule
  std::optional<Evidence> evidence;
};
// {"evidence", "id" (a trial rule's), "key", "kind", "message"}
void WriteCriticalError(JsonWriter& w, const CriticalError& c);

// Text of tokens [begin, end) and the sentence containing a token (≤ 160 bytes), for messages.
std::string Slice(const TokenizedText& t, size_t begin, size_t end);
std::string SentenceOf(const AnalyzedText& a, size_t token);

// A drug mention as every result publishes it: its members (action, assertion, dose, drug,
// end_offset, frequency, match, mention, per_day, prn, route, rxcui, start_offset) into the open
// object, or the whole object.
void WriteMentionMembers(JsonWriter& w, const DrugMention& m);
void WriteMention(JsonWriter& w, const DrugMention& m);

// For patient: affirmed now or in the past (a medication the patient took). Current: affirmed.
inline bool ForPatient(Assertion a) { return a == Assertion::kAffirmed || a == Assertion::kHistorical; }

// When a flag or trap is about the patient: now (default), in the past, or either. A historical
// mention ("former smoker", "quit drinking years ago") never satisfies a current one.
enum class When : uint8_t { kCurrent, kPast, kAny };
inline bool Fits(When w, Assertion a) {
  switch (w) {
    case When::kCurrent: return a == Assertion::kAffirmed;
    case When::kPast: return a == Assertion::kHistorical;
    case When::kAny: return ForPatient(a);
  }
  return false;
}
std::string_view WhenName(When w);
// Reads an optional `when:` key (current, past, any); default current.
When ParseWhen(const YAML::Node& map, const SchemaPath& path);

}  // namespace scribe
