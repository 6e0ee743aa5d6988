// validate.h — the POST /api/submit body: parsed without exceptions, every field checked.
//
//   {"script_id": "03-depression-suicidal-ideation", "vendor": "Acme Scribe 2.1",
//    "scribe_output": "Patient on sertraline 50 mg daily. …"}
//
// Vendor names (1–64 characters) start with an ASCII letter or digit and may contain ASCII
// letters, digits, spaces and . _ - + ( ), with no trailing space and no two spaces in a row:
// they appear on the leaderboard, in badge URLs and inside SVG, so anything that would need
// escaping there is refused (it is still escaped everywhere it is printed).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace scribe::http {

constexpr std::size_t kMaxVendorChars = 64;
constexpr std::size_t kMaxScribeOutputChars = 200000;

struct Submission {
  std::string script_id;
  std::string vendor;
  std::string scribe_output;
  bool dry_run = false;      // graded and answered, never stored or counted
  std::string corpus_hash;   // the corpus the vendor graded against; empty when not given
};

// Why a body was refused: status 400 (malformed JSON) or 422 (a field), an error code and a
// message naming the field and the rule that failed.
struct BodyProblem {
  int status;
  std::string code;
  std::string message;
};

// The rule a vendor name breaks ("vendor must not be empty", …), or nullopt when it is valid.
std::optional<std::string> VendorProblem(std::string_view vendor);

// Parses and validates a submit body (UTF-8 JSON object; unknown keys are ignored).
std::variant<Submission, BodyProblem> ParseSubmission(std::string_view body);

// Unicode code points in valid UTF-8 (bytes that are not continuation bytes).
std::size_t CodePoints(std::string_view utf8);

}  // namespace scribe::http
