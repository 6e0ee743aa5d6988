// fhir/answer_json.h — finding the one JSON object an agent's answer holds, anywhere in its text.
//
//   AnswerObject a = FindAnswerObject(output, HasKey("active_medications"), "the key \"active_medications\"");
//   if (!a.ok) report(a.error);   // "no JSON object in the answer", "... has 2 different JSON objects ..."
//
// The object may stand alone, sit in a ``` fence, or follow prose: every top-level balanced {…}
// span that parses as JSON is a candidate (a span that does not parse is searched inside). The
// answer is the candidate the predicate accepts; several different accepted candidates are
// rejected as ambiguous, identical repeats are one answer. Never throws for any text.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace scribe::fhir {

inline constexpr size_t kMaxAnswerBytes = 262144;  // longer answers are rejected before scanning
inline constexpr size_t kMaxAnswerDepth = 64;      // deeper objects are not candidates

struct AnswerObject {
  bool ok = false;
  std::string error;     // why there is no answer object (when !ok)
  nlohmann::json value;  // the object (when ok)
};

using AnswerPredicate = std::function<bool(const nlohmann::json&)>;

// `what` names what the predicate looks for, for the error message ("the key \"active_medications\"").
AnswerObject FindAnswerObject(std::string_view text, const AnswerPredicate& is_answer, std::string_view what);

// Predicate: an object with this key.
AnswerPredicate HasKey(std::string key);
// Predicate: an object whose "resourceType" is this string.
AnswerPredicate HasResourceType(std::string type);

}  // namespace scribe::fhir
