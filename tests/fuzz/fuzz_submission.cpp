// fuzz_submission.cpp — libFuzzer: POST /api/submit bodies → ParseSubmission (fcgi/validate.h).
//
// Any bytes give a Submission or a BodyProblem (400/422 with a message), never an exception;
// an accepted body's fields obey the documented limits. Run by scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = scribe::http::ParseSubmission(body);
  if (const auto* s = std::get_if<scribe::http::Submission>(&parsed)) {
    if (s->script_id.empty() || scribe::http::VendorProblem(s->vendor) ||
        scribe::http::CodePoints(s->scribe_output) > scribe::http::kMaxScribeOutputChars)
      std::abort();  // accepted something the rules refuse
  } else {
    const auto& p = std::get<scribe::http::BodyProblem>(parsed);
    if ((p.status != 400 && p.status != 422) || p.code.empty() || p.message.empty()) std::abort();
  }
  return 0;
}
