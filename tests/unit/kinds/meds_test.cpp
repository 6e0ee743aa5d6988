// Unit tests for kinds/scorers/meds.h: the "expected" member a parsed medication keeps as JSON
// text is what WriteMed writes for it field by field; SameDrug compares a mention's ComparisonKey.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "json_writer.h"
#include "kinds/scorers/meds.h"
#include "rules.h"
#include "terminology.h"
#include "validator.h"

namespace scribe {
namespace {

std::string Written(const ExpectedMed& med, const MedResult& result) {
  std::string out;
  JsonWriter w(out);
  WriteMed(w, med, result);
  return out;
}

TEST(ExpectedMed, TheKeptExpectedMemberIsWhatWriteMedWritesFieldByField) {
  const SchemaPath path("01-x.yaml", "ground_truth.meds[0]");
  const char* meds[] = {
      "{name: Sertraline, dose: 50 mg, frequency: once daily, route: by mouth, action: continue}",
      "{name: albuterol, dose: 2 puffs, frequency: q4-6h prn}",
      "{name: Zolbetrix, synonyms: [zolb]}",  // not in the terminology: no drug, no RxCUI
      "{name: \"Tylenol \\\"extra\\\"\", dose: 500 mg}",
  };
  MedResult missing;
  missing.status = "missing";
  missing.missing_why = "not mentioned";
  missing.validation = OfflineValidation(DefaultTerminology(), "sertraline", std::nullopt);
  for (const char* yaml : meds) {
    ExpectedMed med = ParseExpectedMed(YAML::Load(yaml), path, DefaultRules(), DefaultTerminology());
    ASSERT_FALSE(med.expected_json.empty()) << yaml;
    ExpectedMed unkept = med;
    unkept.expected_json.clear();
    EXPECT_EQ(Written(med, missing), Written(unkept, missing)) << yaml;
  }
  ExpectedMed sertraline = ParseExpectedMed(YAML::Load(meds[0]), path, DefaultRules(), DefaultTerminology());
  EXPECT_EQ(sertraline.expected_json,
            "{\"action\":\"continue\",\"dose\":\"50 mg\",\"drug\":\"sertraline\",\"frequency\":\"once daily\","
            "\"name\":\"Sertraline\",\"per_day\":1.0,\"prn\":false,\"route\":\"oral\",\"rxcui\":\"36437\"}");
}

TEST(SameDrug, IsTheComparisonKeyAmongTheExpectedKeys) {
  const SchemaPath path("01-x.yaml", "ground_truth.meds[0]");
  // An unknown name is kept as "name:<words>", what a phantom mention of it compares as.
  ExpectedMed zolb = ParseExpectedMed(YAML::Load("{name: Zolbetrix, synonyms: [Sertraline]}"), path, DefaultRules(),
                                      DefaultTerminology());
  ASSERT_EQ(zolb.keys, (std::vector<std::string>{"36437", "name:zolbetrix"}));
  DrugMention m;
  m.phantom = true;
  for (const char* key : {"phantom:zolbetrix", "phantom:zolbetri", "phantom:zolbetrixx", "phantom:36437"}) {
    m.key = key;
    EXPECT_EQ(SameDrug(zolb, m), ComparisonKey(m) == "name:zolbetrix") << key;
    EXPECT_EQ(SameDrug(zolb, m), m.key == "phantom:zolbetrix") << key;
  }
  m.phantom = false;
  for (const char* key : {"36437", "3643", "name:zolbetrix", "zolbetrix", "phantom:zolbetrix"}) {
    m.key = key;
    EXPECT_EQ(SameDrug(zolb, m), m.key == "36437" || m.key == "name:zolbetrix") << key;
  }
}

}  // namespace
}  // namespace scribe
