// fhir/validate.h — the schema dimension: is this a valid FHIR R4 MedicationStatement?
//
//   std::vector<Finding> f = ValidateMedicationStatement(resource);   // empty = valid
//   f[0].path     // "MedicationStatement.dosage[0].timing.repeat.frequency"
//   f[0].message  // "must be a positive integer, got 1.5"
//
// Three layers, in this order:
//   1. Size limits, checked before anything runs a regular expression (libstdc++'s std::regex,
//      which valijson uses for the schema's patterns, recurses once per character): the
//      resource at most kMaxResourceBytes serialised, nesting at most kMaxDepth, every string
//      and key at most kMaxStringBytes. A resource over a limit gets those findings only.
//   2. The HL7 FHIR R4 JSON schema (corpus/fhir/schema/medication_statement.schema.json, the
//      MedicationStatement closure of fhir.schema.json) with valijson; one finding per failing
//      leaf, with valijson's message.
//   3. What the JSON schema cannot say: status present and in the required value set,
//      exactly one medication[x], timing.repeat integers (positiveInt / unsignedInt), periods
//      and durations >= 0 with their units (FHIR invariants tim-1, tim-2, tim-4 to tim-8), and
//      no empty object, empty array or null anywhere (FHIR JSON rules).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace scribe::fhir {

inline constexpr size_t kMaxResourceBytes = 65536;
inline constexpr size_t kMaxDepth = 24;
inline constexpr size_t kMaxStringBytes = 2048;

struct Finding {
  std::string path, message;
  bool operator==(const Finding&) const = default;
};

// The MedicationStatement status value set (required binding, FHIR R4).
const std::vector<std::string>& MedicationStatementStatuses();

// Findings for any JSON value (a non-object is one finding). Never throws for any input.
std::vector<Finding> ValidateMedicationStatement(const nlohmann::json& resource);

// The same for a resource given as JSON text (fhir_validate): text longer than kMaxTextBytes or
// nested deeper than kMaxDepth is a finding without being parsed (parsing recurses per level);
// text that is not JSON is one finding.
inline constexpr size_t kMaxTextBytes = 4 * kMaxResourceBytes;
std::vector<Finding> ValidateMedicationStatementText(std::string_view text);

// [{"path": …, "message": …}, …]
nlohmann::json RenderFindings(const std::vector<Finding>& findings);

}  // namespace scribe::fhir
