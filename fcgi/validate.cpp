// validate.cpp — submit-body parsing and the vendor-name rules of validate.h.
#include "validate.h"

#include <nlohmann/json.hpp>

namespace scribe::http {

using json = nlohmann::json;

std::size_t CodePoints(std::string_view utf8) {
  std::size_t n = 0;
  for (unsigned char c : utf8) n += (c & 0xC0) != 0x80;
  return n;
}

namespace {

bool IsAsciiAlnum(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

bool IsVendorChar(unsigned char c) {
  return IsAsciiAlnum(c) || c == ' ' || c == '.' || c == '_' || c == '-' || c == '+' || c == '(' || c == ')';
}

// How to name a refused character in a message: printable ASCII is quoted, the rest described.
std::string DescribeChar(unsigned char c) {
  if (c >= 0x80) return "a non-ASCII character";
  if (c < 0x20 || c == 0x7F) return "a control character";
  return std::string("'") + static_cast<char>(c) + "'";
}

}  // namespace

std::optional<std::string> VendorProblem(std::string_view vendor) {
  if (vendor.empty()) return "vendor must not be empty";
  std::size_t chars = CodePoints(vendor);
  if (chars > kMaxVendorChars)
    return "vendor must be at most " + std::to_string(kMaxVendorChars) + " characters (got " + std::to_string(chars) + ")";
  if (!IsAsciiAlnum(static_cast<unsigned char>(vendor.front()))) return "vendor must start with an ASCII letter or digit";
  std::size_t position = 0;  // in characters, 1-based in messages
  for (std::size_t i = 0; i < vendor.size(); ++i) {
    auto c = static_cast<unsigned char>(vendor[i]);
    if ((c & 0xC0) != 0x80) ++position;
    if (!IsVendorChar(c))
      return "vendor may contain only ASCII letters, digits, spaces and . _ - + ( ); " + DescribeChar(c) +
             " at position " + std::to_string(position) + " is not allowed";
  }
  if (vendor.back() == ' ') return "vendor must not end with a space";
  if (vendor.find("  ") != std::string_view::npos) return "vendor must not contain two spaces in a row";
  return std::nullopt;
}

std::variant<Submission, BodyProblem> ParseSubmission(std::string_view body) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return BodyProblem{400, "malformed_json", "request body is not valid JSON"};
  if (!doc.is_object()) return BodyProblem{422, "invalid_body", "request body must be a JSON object"};

  // A required string field: its value, or the problem.
  auto field = [&](const char* name) -> std::variant<std::string, BodyProblem> {
    auto it = doc.find(name);
    if (it == doc.end()) return BodyProblem{422, "missing_field", std::string(name) + " is required"};
    if (!it->is_string()) return BodyProblem{422, "invalid_field", std::string(name) + " must be a string"};
    return it->get_ref<const std::string&>();
  };

  Submission s;
  auto script_id = field("script_id");
  if (auto* p = std::get_if<BodyProblem>(&script_id)) return *p;
  s.script_id = std::move(std::get<std::string>(script_id));
  if (s.script_id.empty()) return BodyProblem{422, "invalid_field", "script_id must not be empty"};

  auto vendor = field("vendor");
  if (auto* p = std::get_if<BodyProblem>(&vendor)) return *p;
  s.vendor = std::move(std::get<std::string>(vendor));
  if (auto problem = VendorProblem(s.vendor)) return BodyProblem{422, "invalid_field", *problem};

  auto output = field("scribe_output");
  if (auto* p = std::get_if<BodyProblem>(&output)) return *p;
  s.scribe_output = std::move(std::get<std::string>(output));
  if (std::size_t chars = CodePoints(s.scribe_output); chars > kMaxScribeOutputChars)
    return BodyProblem{422, "invalid_field",
                       "scribe_output must be at most " + std::to_string(kMaxScribeOutputChars) + " characters (got " +
                           std::to_string(chars) + ")"};
  // A blank note is no run: nothing to grade, and it must never count on the leaderboard.
  if (s.scribe_output.find_first_not_of(" \t\r\n\f\v") == std::string::npos)
    return BodyProblem{422, "invalid_field", "scribe_output must not be empty or only whitespace"};

  if (auto it = doc.find("dry_run"); it != doc.end() && !it->is_null()) {
    if (!it->is_boolean()) return BodyProblem{422, "invalid_field", "dry_run must be true or false"};
    s.dry_run = it->get<bool>();
  }
  if (auto it = doc.find("corpus_hash"); it != doc.end() && !it->is_null()) {
    if (!it->is_string()) return BodyProblem{422, "invalid_field", "corpus_hash must be a string"};
    s.corpus_hash = it->get_ref<const std::string&>();
    bool hex = s.corpus_hash.size() == 64 &&
               s.corpus_hash.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!hex) return BodyProblem{422, "invalid_field", "corpus_hash must be 64 lower-case hexadecimal characters (a SHA-256)"};
  }
  return s;
}

}  // namespace scribe::http
