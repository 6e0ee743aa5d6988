// fuzz_trial.cpp — libFuzzer: trial YAML → ParseTrial(yaml_text, file_name, rules, terminology).
//
// ParseTrial's contract: any text either yields a Trial or throws TrialError naming the file,
// key and problem; nothing else escapes, nothing crashes. A trial that parses must also
// survive the round trip the database relies on (TrialToJson → TrialFromJson). Run by
// scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rules.h"
#include "terminology.h"
#include "trial.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view yaml(reinterpret_cast<const char*>(data), size);
  const scribe::Rules& rules = scribe::DefaultRules();
  try {
    scribe::Trial trial = scribe::ParseTrial(yaml, "fuzz.yaml", rules, scribe::DefaultTerminology());
    scribe::TrialFromJson(scribe::TrialToJson(trial), rules, scribe::DefaultTerminology());
    // serialised as store.cpp does
    (void)scribe::GroundTruthJson(trial).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const scribe::TrialError&) {
    // refused, with a message: the contract
  }
  return 0;
}
