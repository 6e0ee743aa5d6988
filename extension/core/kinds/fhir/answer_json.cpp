// fhir/answer_json.cpp — balanced-brace scan for JSON objects in free text.
#include "fhir/answer_json.h"

#include <algorithm>
#include <vector>

namespace scribe::fhir {
namespace {

using nlohmann::json;

constexpr size_t kMaxRestarts = 256;  // spans that fail to parse and are searched inside (bounds the scan)

struct Span {
  size_t end = std::string_view::npos;  // one past the closing brace; npos when it never closes
  size_t depth = 0;                     // deepest nesting of objects and arrays inside
};

// The balanced {…} span starting at `begin`, respecting JSON strings and escapes.
Span SpanAt(std::string_view text, size_t begin) {
  Span span;
  size_t braces = 0, nesting = 0;
  bool in_string = false;
  for (size_t i = begin; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      braces += c == '{';
      span.depth = std::max(span.depth, ++nesting);
    } else if (c == '}' || c == ']') {
      if (nesting > 0) --nesting;
      if (c == '}' && braces > 0 && --braces == 0) {
        span.end = i + 1;
        return span;
      }
    }
  }
  return span;
}

// Every top-level object in the text: spans that parse are taken whole; a span that does not
// parse (or never closes) is searched again from the character after its brace. Objects nested
// deeper than kMaxAnswerDepth are not parsed (copying or comparing them would recurse that deep).
std::vector<json> Candidates(std::string_view text, bool& too_deep) {
  std::vector<json> out;
  size_t restarts = 0;
  size_t i = text.find('{');
  while (i != std::string_view::npos) {
    Span span = SpanAt(text, i);
    size_t end = span.end;
    if (end != std::string_view::npos && span.depth > kMaxAnswerDepth) {
      too_deep = true;
      i = text.find('{', end);
      continue;
    }
    if (end != std::string_view::npos) {
      json value = json::parse(text.substr(i, end - i), nullptr, false);
      if (!value.is_discarded() && value.is_object()) {
        out.push_back(std::move(value));
        i = text.find('{', end);
        continue;
      }
    }
    if (++restarts > kMaxRestarts) break;
    i = text.find('{', i + 1);
  }
  return out;
}

}  // namespace

AnswerObject FindAnswerObject(std::string_view text, const AnswerPredicate& is_answer, std::string_view what) {
  AnswerObject result;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    result.error = "the answer is empty";
    return result;
  }
  if (text.size() > kMaxAnswerBytes) {
    result.error =
        "the answer is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxAnswerBytes);
    return result;
  }
  bool too_deep = false;
  std::vector<json> candidates = Candidates(text, too_deep);
  if (candidates.empty()) {
    result.error =
        too_deep ? "the JSON object in the answer is nested deeper than " + std::to_string(kMaxAnswerDepth) + " levels"
                 : "no JSON object in the answer";
    return result;
  }
  std::vector<json> accepted;
  for (json& c : candidates) {
    if (!is_answer(c)) continue;
    bool repeat = false;
    for (const json& a : accepted) repeat = repeat || a == c;
    if (!repeat) accepted.push_back(std::move(c));
  }
  if (accepted.empty()) {
    result.error = "no JSON object in the answer has " + std::string(what);
    return result;
  }
  if (accepted.size() > 1) {
    result.error = "the answer has " + std::to_string(accepted.size()) + " different JSON objects with " +
                   std::string(what) + "; give exactly one";
    return result;
  }
  result.ok = true;
  result.value = std::move(accepted.front());
  return result;
}

AnswerPredicate HasKey(std::string key) {
  return [key = std::move(key)](const json& j) { return j.is_object() && j.contains(key); };
}

AnswerPredicate HasResourceType(std::string type) {
  return [type = std::move(type)](const json& j) {
    auto it = j.find("resourceType");
    return it != j.end() && it->is_string() && it->get_ref<const std::string&>() == type;
  };
}

}  // namespace scribe::fhir
