// Unit tests for fhir/extract_score.h. Expected scores are worked out by hand from
// docs/methodology.md (fhir_extract): P = matched / answered, R = matched / expected,
// F1 = 2PR / (P + R); nothing expected and nothing answered is 1/1/1, exactly one of the two
// empty is 0/0/0.
#include "fhir/extract_score.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "embedded.h"
#include "fhir/bundle.h"

namespace scribe::fhir {
namespace {

using nlohmann::json;

std::string Answer(const std::vector<MedicationCode>& meds) {
  json list = json::array();
  for (const MedicationCode& m : meds) list.push_back({{"code", m.code}, {"display", m.display}});
  return json({{"active_medications", list}}).dump();
}

std::vector<MedicationCode> Truth(const std::string& file) {
  return DeriveActiveMedications(json::parse(embedded_file("corpus/scripts/fhir/bundles/" + file))).medications;
}

const std::vector<std::string> kFixtures = {"adriana394_preciado125.json",  "gerry91_powlowski563.json",
                                            "lavera253_langworth352.json",  "mikel238_baumbach677.json",
                                            "quintin944_willms744.json",    "raymon366_sauer652.json",
                                            "stacia109_schowalter414.json", "trinidad33_sauer652.json",
                                            "vennie613_bogan287.json",      "yuriko393_jakubowski832.json"};

const MedicationCode kInvented{"197361", "amlodipine 5 MG Oral Tablet"};

TEST(ScoreExtraction, ReferenceAnswerScoresOneOnEveryFixture) {
  for (const std::string& f : kFixtures) {
    std::vector<MedicationCode> truth = Truth(f);
    ExtractionResult r = ScoreExtraction(truth, "```json\n" + Answer(truth) + "\n```");
    EXPECT_TRUE(r.parsed) << f << r.parse_error;
    EXPECT_DOUBLE_EQ(r.score, 1.0) << f;
    EXPECT_DOUBLE_EQ(r.precision, 1.0) << f;
    EXPECT_DOUBLE_EQ(r.recall, 1.0) << f;
    EXPECT_TRUE(r.exact_set_match) << f;
    EXPECT_EQ(r.displays_matched, truth.size()) << f;
  }
}

TEST(ScoreExtraction, MissingMedicationOnEveryFixtureWithOne) {
  for (const std::string& f : kFixtures) {
    std::vector<MedicationCode> truth = Truth(f);
    if (truth.empty()) continue;
    std::vector<MedicationCode> answer(truth.begin() + 1, truth.end());
    ExtractionResult r = ScoreExtraction(truth, Answer(answer));
    double n = static_cast<double>(truth.size());
    // P = (n-1)/(n-1) = 1 when n > 1 (0 when nothing is answered), R = (n-1)/n.
    double p = n > 1 ? 1.0 : 0.0, rec = n > 1 ? (n - 1) / n : 0.0;
    double f1 = n > 1 ? 2 * p * rec / (p + rec) : 0.0;
    EXPECT_DOUBLE_EQ(r.precision, p) << f;
    EXPECT_DOUBLE_EQ(r.recall, rec) << f;
    EXPECT_DOUBLE_EQ(r.score, f1) << f;
    EXPECT_FALSE(r.exact_set_match) << f;
    ASSERT_EQ(r.missing.size(), 1u) << f;
    EXPECT_EQ(r.missing[0], truth[0]) << f;
  }
}

TEST(ScoreExtraction, ExtraMedicationOnEveryFixture) {
  for (const std::string& f : kFixtures) {
    std::vector<MedicationCode> truth = Truth(f);
    std::vector<MedicationCode> answer = truth;
    answer.push_back(kInvented);
    ExtractionResult r = ScoreExtraction(truth, Answer(answer));
    double n = static_cast<double>(truth.size());
    // P = n/(n+1), R = 1, F1 = 2n/(2n+1); with nothing expected, any invented code scores 0.
    EXPECT_DOUBLE_EQ(r.precision, n / (n + 1)) << f;
    EXPECT_DOUBLE_EQ(r.recall, n > 0 ? 1.0 : 0.0) << f;
    EXPECT_DOUBLE_EQ(r.score, n > 0 ? 2 * n / (2 * n + 1) : 0.0) << f;
    ASSERT_EQ(r.extra.size(), 1u) << f;
    EXPECT_EQ(r.extra[0], kInvented) << f;
  }
}

TEST(ScoreExtraction, WrongDisplayKeepsF1AndFailsTheDisplayLayer) {
  std::vector<MedicationCode> truth = Truth("quintin944_willms744.json");
  ASSERT_EQ(truth.size(), 2u);
  std::vector<MedicationCode> answer = truth;
  answer[1].display = "Tramadol 50 mg tablet";
  answer[0].display = "  72 HR Fentanyl\u00a00.025 MG/HR   Transdermal System ";  // same after folding
  ExtractionResult r = ScoreExtraction(truth, Answer(answer));
  EXPECT_DOUBLE_EQ(r.score, 1.0);
  EXPECT_TRUE(r.exact_set_match);
  EXPECT_EQ(r.displays_matched, 1u);
  ASSERT_EQ(r.display_mismatches.size(), 1u);
  EXPECT_EQ(r.display_mismatches[0].code, truth[1].code);
  EXPECT_EQ(r.display_mismatches[0].expected, "tramadol hydrochloride 50 MG Oral Tablet");
  EXPECT_EQ(r.display_mismatches[0].answered, "Tramadol 50 mg tablet");
  json rendered = RenderExtraction(r);
  EXPECT_EQ(rendered["display"]["accuracy"], 0.5);
  EXPECT_EQ(rendered["display"]["checked"], 2);
}

TEST(ScoreExtraction, ZeroMedicationPatient) {
  std::vector<MedicationCode> truth = Truth("vennie613_bogan287.json");
  ASSERT_TRUE(truth.empty());
  ExtractionResult empty = ScoreExtraction(truth, R"({"active_medications": []})");
  EXPECT_TRUE(empty.parsed);
  EXPECT_DOUBLE_EQ(empty.precision, 1.0);
  EXPECT_DOUBLE_EQ(empty.recall, 1.0);
  EXPECT_DOUBLE_EQ(empty.score, 1.0);
  EXPECT_TRUE(empty.exact_set_match);
  EXPECT_TRUE(RenderExtraction(empty)["display"]["accuracy"].is_null());

  ExtractionResult invented =
      ScoreExtraction(truth, Answer({{"861467", "Meperidine Hydrochloride 50 MG Oral Tablet"}}));
  EXPECT_DOUBLE_EQ(invented.precision, 0.0);
  EXPECT_DOUBLE_EQ(invented.recall, 0.0);
  EXPECT_DOUBLE_EQ(invented.score, 0.0);
  EXPECT_FALSE(invented.exact_set_match);
}

TEST(ScoreExtraction, EmptyAnswerForAPatientWithMedications) {
  ExtractionResult r = ScoreExtraction(Truth("mikel238_baumbach677.json"), R"({"active_medications": []})");
  EXPECT_TRUE(r.parsed);
  EXPECT_DOUBLE_EQ(r.precision, 0.0);
  EXPECT_DOUBLE_EQ(r.score, 0.0);
  EXPECT_EQ(r.missing.size(), 1u);
}

TEST(ScoreExtraction, HalfRightWorkedExample) {
  // Expected {A, B}, answered {A, C}: P = 1/2, R = 1/2, F1 = 1/2.
  std::vector<MedicationCode> truth = {{"1", "A"}, {"2", "B"}};
  ExtractionResult r = ScoreExtraction(truth, Answer({{"1", "A"}, {"3", "C"}}));
  EXPECT_DOUBLE_EQ(r.precision, 0.5);
  EXPECT_DOUBLE_EQ(r.recall, 0.5);
  EXPECT_DOUBLE_EQ(r.score, 0.5);
}

TEST(ScoreExtraction, DuplicatesInTheAnswerCountOnce) {
  std::vector<MedicationCode> truth = {{"1", "A"}};
  ExtractionResult r = ScoreExtraction(truth, Answer({{"1", "A"}, {" 1 ", "A again"}}));
  EXPECT_DOUBLE_EQ(r.score, 1.0);
  EXPECT_EQ(r.duplicates, std::vector<std::string>{"1"});
  EXPECT_EQ(r.displays_matched, 1u);
}

TEST(ScoreExtraction, UnparseableAnswersScoreZeroWithTheirReason) {
  std::vector<MedicationCode> truth = {{"314076", "lisinopril 10 MG Oral Tablet"}};
  auto reason = [&](const std::string& text) {
    ExtractionResult r = ScoreExtraction(truth, text);
    EXPECT_FALSE(r.parsed) << text;
    EXPECT_DOUBLE_EQ(r.score, 0.0) << text;
    EXPECT_EQ(r.missing.size(), 1u) << text;
    return r.parse_error;
  };
  EXPECT_EQ(reason("The patient takes lisinopril 10 mg daily."), "no JSON object in the answer");
  EXPECT_EQ(reason(R"({"medications": ["314076"]})"),
            "no JSON object in the answer has the key \"active_medications\"");
  EXPECT_EQ(reason(R"({"active_medications": "314076"})"), "active_medications must be an array, got string");
  EXPECT_EQ(reason(R"({"active_medications": ["314076"]})"), "active_medications[0] must be an object, got string");
  EXPECT_EQ(reason(R"({"active_medications": [{"code": 314076, "display": "x"}]})"),
            "active_medications[0].code must be a non-empty string");
  EXPECT_EQ(reason(R"({"active_medications": [{"code": "314076"}]})"),
            "active_medications[0].display must be a string");
  json rendered = RenderExtraction(ScoreExtraction(truth, "nothing"));
  EXPECT_EQ(rendered["parse_error"], "no JSON object in the answer");
  EXPECT_EQ(rendered["score_total"], 0.0);
  EXPECT_EQ(rendered["missing"], json::parse(R"([{"code": "314076", "display": "lisinopril 10 MG Oral Tablet"}])"));
}

TEST(RenderExtraction, PublishedFields) {
  std::vector<MedicationCode> truth = {{"1", "A"}, {"2", "B"}, {"3", "C"}};
  json j = RenderExtraction(ScoreExtraction(truth, Answer({{"1", "A"}, {"2", "b"}, {"9", "Z"}})));
  // P = 2/3, R = 2/3, F1 = 2/3 -> 0.6667.
  EXPECT_EQ(j["score_total"], 0.6667);
  EXPECT_EQ(j["precision"], 0.6667);
  EXPECT_EQ(j["recall"], 0.6667);
  EXPECT_EQ(j["parsed"], true);
  EXPECT_TRUE(j["parse_error"].is_null());
  EXPECT_EQ(j["matched"], json::parse(R"(["1", "2"])"));
  EXPECT_EQ(j["missing"], json::parse(R"([{"code": "3", "display": "C"}])"));
  EXPECT_EQ(j["extra"], json::parse(R"([{"code": "9", "display": "Z"}])"));
  EXPECT_EQ(j["display"]["mismatches"], json::parse(R"([{"code": "2", "expected": "B", "answered": "b"}])"));
  EXPECT_EQ(j["exact_set_match"], false);
}

}  // namespace
}  // namespace scribe::fhir
