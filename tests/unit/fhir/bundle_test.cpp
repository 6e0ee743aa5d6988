// Unit tests for fhir/bundle.h: the fhir_extract ground truth of hand-made bundles and of every
// committed fixture (expected lists read off the source bundles by hand; see corpus/fhir/README.md).
#include "fhir/bundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "embedded.h"

namespace scribe::fhir {
namespace {

using nlohmann::json;

const char* kRx = "http://www.nlm.nih.gov/research/umls/rxnorm";

json Request(const std::string& id, const std::string& status, json medication) {
  json r = {{"resourceType", "MedicationRequest"}, {"id", id}, {"status", status}};
  r.update(medication);
  return {{"fullUrl", "urn:uuid:" + id}, {"resource", r}};
}

// List parameters are initializer lists: a braced list of one json initialising a json parameter is
// a copy of the element for clang (CWG 2137) and an array for GCC.
json Concept(std::initializer_list<json> codings) {
  return {{"medicationCodeableConcept", {{"coding", json(std::vector<json>(codings))}}}};
}
json Coding(const std::string& system, const std::string& code, const std::string& display) {
  return {{"system", system}, {"code", code}, {"display", display}};
}

json Bundle(std::initializer_list<json> entries) {
  return {{"resourceType", "Bundle"}, {"type", "collection"}, {"entry", json(std::vector<json>(entries))}};
}

TEST(DeriveActiveMedications, ActiveOnlyByRxNormCodingNotFirstCoding) {
  json b = Bundle({
      Request("a", "active",
              Concept({Coding("http://snomed.info/sct", "111", "snomed first"),
                       Coding(kRx, "314076", "lisinopril 10 MG Oral Tablet")})),
      Request("b", "stopped", Concept({Coding(kRx, "308136", "amLODIPine 2.5 MG Oral Tablet")})),
      Request("c", "completed", Concept({Coding(kRx, "310965", "Ibuprofen 200 MG Oral Tablet")})),
      Request("d", "on-hold", Concept({Coding(kRx, "209387", "Acetaminophen 325 MG Oral Tablet [Tylenol]")})),
  });
  ActiveMedications a = DeriveActiveMedications(b);
  EXPECT_EQ(a.medications, (std::vector<MedicationCode>{{"314076", "lisinopril 10 MG Oral Tablet"}}));
  EXPECT_TRUE(a.skipped.empty());
}

TEST(DeriveActiveMedications, DuplicatesCollapsedFirstDisplayKept) {
  json b = Bundle({
      Request("a", "active", Concept({Coding(kRx, "314076", "lisinopril 10 MG Oral Tablet")})),
      Request("b", "active", Concept({Coding(kRx, "314076", "Lisinopril 10 MG Oral Tablet")})),
  });
  EXPECT_EQ(DeriveActiveMedications(b).medications,
            (std::vector<MedicationCode>{{"314076", "lisinopril 10 MG Oral Tablet"}}));
}

TEST(DeriveActiveMedications, ResolvesMedicationReferences) {
  json med = {{"resourceType", "Medication"}, {"id", "m1"}, {"code", {{"coding", {Coding(kRx, "1", "one")}}}}};
  json contained = Request("c", "active", {{"medicationReference", {{"reference", "#m2"}}}});
  contained["resource"]["contained"] = {
      {{"resourceType", "Medication"}, {"id", "m2"}, {"code", {{"coding", {Coding(kRx, "2", "two")}}}}}};
  json b = Bundle({
      {{"fullUrl", "urn:uuid:m1"}, {"resource", med}},
      Request("a", "active", {{"medicationReference", {{"reference", "urn:uuid:m1"}}}}),
      Request("b", "active", {{"medicationReference", {{"reference", "Medication/m1"}}}}),
      contained,
      Request("d", "active", {{"medicationReference", {{"reference", "Medication/nope"}}}}),
      Request("e", "active", Concept({Coding("http://snomed.info/sct", "3", "three")})),
      Request("f", "active", json::object()),
  });
  ActiveMedications a = DeriveActiveMedications(b);
  EXPECT_EQ(a.medications, (std::vector<MedicationCode>{{"1", "one"}, {"2", "two"}}));
  EXPECT_EQ(a.skipped,
            (std::vector<std::string>{
                "MedicationRequest/d: medicationReference \"Medication/nope\" names no Medication in the bundle",
                "MedicationRequest/e: no RxNorm coding", "MedicationRequest/f: no medication[x]"}));
}

TEST(DeriveActiveMedications, RejectsWhatIsNotABundle) {
  EXPECT_THROW(DeriveActiveMedications(json::object()), std::invalid_argument);
  try {
    DeriveActiveMedications({{"resourceType", "Bundle"}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "the Bundle has no entry array");
  }
}

struct Fixture {
  std::string file;
  std::vector<MedicationCode> active;  // sorted by code
};

// Read off the source bundles: every MedicationRequest with status "active", by RxNorm code.
const std::vector<Fixture>& Fixtures() {
  static const std::vector<Fixture> f = {
      {"adriana394_preciado125.json",
       {{"206905", "Ibuprofen 400 MG Oral Tablet [Ibu]"},
        {"209387", "Acetaminophen 325 MG Oral Tablet [Tylenol]"},
        {"856987", "Acetaminophen 300 MG / Hydrocodone Bitartrate 5 MG Oral Tablet"}}},
      {"gerry91_powlowski563.json", {{"308136", "amLODIPine 2.5 MG Oral Tablet"}}},
      {"lavera253_langworth352.json",
       {{"1049625", "Acetaminophen 325 MG / Oxycodone Hydrochloride 10 MG Oral Tablet [Percocet]"},
        {"856987", "Acetaminophen 300 MG / Hydrocodone Bitartrate 5 MG Oral Tablet"}}},
      {"mikel238_baumbach677.json", {{"314076", "lisinopril 10 MG Oral Tablet"}}},
      {"quintin944_willms744.json",
       {{"245134", "72 HR Fentanyl 0.025 MG/HR Transdermal System"},
        {"835603", "tramadol hydrochloride 50 MG Oral Tablet"}}},
      {"raymon366_sauer652.json", {{"209387", "Acetaminophen 325 MG Oral Tablet [Tylenol]"}}},
      {"stacia109_schowalter414.json", {{"856987", "Acetaminophen 300 MG / Hydrocodone Bitartrate 5 MG Oral Tablet"}}},
      {"trinidad33_sauer652.json", {{"308136", "amLODIPine 2.5 MG Oral Tablet"}}},
      {"vennie613_bogan287.json", {}},
      {"yuriko393_jakubowski832.json",
       {{"1870230", "NDA020800 0.3 ML Epinephrine 1 MG/ML Auto-Injector"},
        {"2123111", "NDA020503 200 ACTUAT Albuterol 0.09 MG/ACTUAT Metered Dose Inhaler"},
        {"665078", "Loratadine 5 MG Chewable Tablet"},
        {"895994", "120 ACTUAT Fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler"}}},
  };
  return f;
}

json LoadFixture(const std::string& file) {
  std::string_view text = embedded_file("corpus/scripts/fhir/bundles/" + file);
  EXPECT_FALSE(text.empty()) << file;
  return json::parse(text);
}

TEST(DeriveActiveMedications, EveryFixture) {
  for (const Fixture& f : Fixtures()) {
    json bundle = LoadFixture(f.file);
    EXPECT_EQ(bundle["type"], "collection") << f.file;
    ActiveMedications a = DeriveActiveMedications(bundle);
    std::sort(a.medications.begin(), a.medications.end(),
              [](const MedicationCode& x, const MedicationCode& y) { return x.code < y.code; });
    EXPECT_EQ(a.medications, f.active) << f.file;
    EXPECT_TRUE(a.skipped.empty()) << f.file;
  }
}

TEST(DeriveActiveMedications, FixturesCoverTheRequiredShapes) {
  // Zero to four active medications, and both kinds of medicationReference.
  size_t fewest = 99, most = 0;
  for (const Fixture& f : Fixtures()) {
    fewest = std::min(fewest, f.active.size());
    most = std::max(most, f.active.size());
  }
  EXPECT_EQ(Fixtures().size(), 10u);
  EXPECT_EQ(fewest, 0u);
  EXPECT_EQ(most, 4u);
  json separate = LoadFixture("yuriko393_jakubowski832.json");
  EXPECT_EQ(separate["entry"][1]["resource"]["resourceType"], "Medication");
  json contained = LoadFixture("adriana394_preciado125.json");
  bool has_contained = false;
  for (const json& e : contained["entry"])
    if (e["resource"]["resourceType"] == "MedicationRequest")
      has_contained = e["resource"]["medicationReference"]["reference"] == "#med";
  EXPECT_TRUE(has_contained);
}

}  // namespace
}  // namespace scribe::fhir
