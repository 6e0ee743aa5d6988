// Unit tests for the kinds fhir_extract and fhir_write (kinds/fhir_extract, kinds/fhir_write):
// their schema (what a trial file must name, and the errors when it does not), what the agent
// is given (Kind::Prompt), the ground truth and the critical errors. Expected texts are written
// from the kinds' rules (docs/methodology.md §9), not taken from their output.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "embedded.h"
#include "fhir_write/fhir_write.h"
#include "grade.h"
#include "kind.h"
#include "trial.h"
#include "validator.h"

namespace scribe {
namespace {

using nlohmann::json;

const char* kExtractYaml =
    "id: 90-x\nkind: fhir_extract\ntitle: t\ndifficulty: easy\nsummary: s\ninstructions: List them.\n"
    "bundle: b.json\n";
const char* kWriteYaml =
    "id: 91-x\nkind: fhir_write\ntitle: t\ndifficulty: easy\nsummary: s\ninstructions: Write it.\ncase: c.json\n";

// A trial parsed with `files` as the corpus directory.
Trial Parse(const std::string& yaml, std::map<std::string, std::string> files) {
  FileReader reader = [files](const std::string& path) {
    auto it = files.find(path);
    if (it == files.end()) throw TrialError("t.yaml: " + path + ": cannot be read");
    return it->second;
  };
  return ParseTrial(yaml, "t.yaml", DefaultRules(), DefaultTerminology(), reader);
}

std::string ParseError(const std::string& yaml, std::map<std::string, std::string> files) {
  try {
    Parse(yaml, std::move(files));
  } catch (const TrialError& e) {
    return e.what();
  }
  return "(parsed)";
}

json Request(const std::string& status, json medication) {
  json r = {{"resourceType", "MedicationRequest"}, {"id", "r1"}, {"status", status}};
  for (auto& [k, v] : medication.items()) r[k] = v;
  return {{"resource", r}};
}

json Rx(const std::string& code, const std::string& display) {
  return {
      {"coding", {{{"system", "http://www.nlm.nih.gov/research/umls/rxnorm"}, {"code", code}, {"display", display}}}}};
}

// The entries as an initializer list: a braced list of one json initialising a json parameter is a
// copy of the element for clang (CWG 2137) and an array for GCC.
std::string Bundle(std::initializer_list<json> entries) {
  return json{{"resourceType", "Bundle"}, {"type", "collection"}, {"entry", json(std::vector<json>(entries))}}.dump();
}

TEST(FhirExtractKind, TheBundleIsWhatTheAgentIsGivenAndTheGroundTruthComesFromIt) {
  std::string bundle = Bundle({Request("active", {{"medicationCodeableConcept", Rx("314076", "lisinopril 10 MG")}}),
                               Request("stopped", {{"medicationCodeableConcept", Rx("310965", "Ibuprofen 200 MG")}})});
  Trial t = Parse(kExtractYaml, {{"b.json", bundle}});
  EXPECT_EQ(t.encounter_text, bundle);
  EXPECT_EQ(KindOf(t).Prompt(t), "List them.\n\n" + bundle);
  EXPECT_EQ(t.files.at("b.json"), bundle);  // hashed into the version
  EXPECT_EQ(GroundTruthJson(t),
            json::parse(
                R"({"bundle": "b.json", "active_medications": [{"code": "314076", "display": "lisinopril 10 MG"}]})"));
}

TEST(FhirExtractKind, BadBundlesAreRefusedWithTheReason) {
  EXPECT_EQ(ParseError(kExtractYaml, {{"b.json", "{not json"}}), "t.yaml: bundle: \"b.json\" is not valid JSON");
  std::string no_rxnorm = Bundle({Request("active", {{"medicationCodeableConcept", {{"text", "lisinopril"}}}})});
  EXPECT_EQ(
      ParseError(kExtractYaml, {{"b.json", no_rxnorm}})
          .rfind("t.yaml: bundle: \"b.json\": an active MedicationRequest has no RxNorm code (MedicationRequest/r1", 0),
      0u);
  EXPECT_EQ(ParseError("id: 90-x\nkind: fhir_extract\ntitle: t\ndifficulty: easy\nsummary: s\ninstructions: i\n", {}),
            "t.yaml: bundle: is required");
  EXPECT_EQ(ParseError(std::string(kExtractYaml) + "encounter_text: hello\n", {{"b.json", Bundle({})}}),
            "t.yaml: encounter_text: is not used by kind fhir_extract (its input comes from its own keys)");
}

TEST(FhirExtractKind, OnlyACodeTheRecordNeverMentionsIsInvented) {
  std::string bundle = Bundle({Request("stopped", {{"medicationCodeableConcept", Rx("310965", "Ibuprofen 200 MG")}})});
  PreparedTrial p(Parse(kExtractYaml, {{"b.json", bundle}}), DefaultRules(), DefaultTerminology(),
                  DefaultAssertionAnalyzer());
  OfflineValidator v(DefaultTerminology());
  // Nothing is active: listing the stopped ibuprofen costs precision, an unknown code is invented.
  json stopped = Grade(p, R"({"active_medications": [{"code": "310965", "display": "Ibuprofen 200 MG"}]})", "h", v);
  EXPECT_EQ(stopped["score_total"], 0.0);
  EXPECT_EQ(stopped["unsafe"], false);
  EXPECT_EQ(stopped["extraction"]["extra"][0]["in_bundle"], true);
  json invented = Grade(p, R"({"active_medications": [{"code": "312941", "display": "sertraline"}]})", "h", v);
  EXPECT_EQ(invented["unsafe"], true);
  EXPECT_EQ(invented["critical_errors"][0]["kind"], "invented_medication");
  EXPECT_EQ(invented["critical_errors"][0]["key"], "invented_medication:312941");
  EXPECT_FALSE(invented.contains("score_drug"));
}

TEST(FhirWriteKind, TheAgentIsGivenTheSubjectTheExcerptAndTheCatalogNeighbours) {
  std::string c(embedded_file("corpus/scripts/fhir/write_cases/zoloft-brand-only.json"));
  Trial t = Parse(kWriteYaml, {{"c.json", c}});
  std::string prompt = KindOf(t).Prompt(t);
  EXPECT_EQ(
      prompt.rfind("Write it.\n\nSubject: Patient/pat-109\n\nNote excerpt:\nDepression, stable: continues Zoloft 50 mg "
                   "every morning.\n\nSite catalog (RxNorm products with the same ingredients; code, term type, "
                   "display):\n",
                   0),
      0u);
  // Every sertraline product of the catalog, generic and branded; nothing else.
  EXPECT_NE(prompt.find("208161\tSBD\tsertraline 50 MG Oral Tablet [Zoloft]\n"), std::string::npos);
  EXPECT_NE(prompt.find("312941\tSCD\tsertraline 50 MG Oral Tablet\n"), std::string::npos);
  EXPECT_EQ(prompt.find("escitalopram"), std::string::npos);
  EXPECT_EQ(GroundTruthJson(t)["rxnorm_code"], "208161");
  EXPECT_EQ(GroundTruthJson(t)["case"], "c.json");
}

TEST(FhirWriteKind, ACaseThatCouldNeverPassIsRefused) {
  std::string c(embedded_file("corpus/scripts/fhir/write_cases/zoloft-brand-only.json"));
  json unknown = json::parse(c);
  unknown["expected"]["rxnorm_code"] = "999999999";
  EXPECT_EQ(ParseError(kWriteYaml, {{"c.json", unknown.dump()}}),
            "t.yaml: case: RxNorm code 999999999 of \"c.json\" is not in the site catalog");
  EXPECT_EQ(ParseError(kWriteYaml, {{"c.json", "[]"}}).rfind("t.yaml: case: c.json", 0), 0u);
}

}  // namespace
}  // namespace scribe
