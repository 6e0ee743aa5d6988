// Unit tests for fhir/write_case.h: reading cases, their errors, and doses per day.
#include "fhir/write_case.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace scribe::fhir {
namespace {

using nlohmann::json;

json Case() {
  return json::parse(R"({"case_id": "c", "subject": "Patient/p", "input": "note",
    "expected": {"rxnorm_code": "1", "display": "d", "status": "active",
                 "dosage": {"dose_value": 5, "dose_unit": "mg", "frequency_per_day": 2}, "max_daily_dose": 40}})");
}

std::string Error(const json& j) {
  try {
    ParseWriteCase(j, "case.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParseWriteCase, GroundevalShape) {
  WriteCase c = ParseWriteCase(Case(), "case.json");
  EXPECT_EQ(c.case_id, "c");
  ASSERT_EQ(c.dosage.size(), 1u);
  EXPECT_DOUBLE_EQ(c.dosage[0].value, 5);
  EXPECT_EQ(c.dosage[0].unit, "mg");
  EXPECT_DOUBLE_EQ(c.dosage[0].per_day.min, 2);
  EXPECT_DOUBLE_EQ(c.dosage[0].per_day.max, 2);
  ASSERT_TRUE(c.max_daily_dose.has_value());
  EXPECT_DOUBLE_EQ(c.max_daily_dose->value, 40);
  EXPECT_EQ(c.max_daily_dose->unit, "mg");
  EXPECT_EQ(c.max_daily_dose->period, "d");
}

TEST(ParseWriteCase, FrequencyAsARepeatAndAsARange) {
  json j = Case();
  j["expected"]["dosage"].erase("frequency_per_day");
  j["expected"]["dosage"]["frequency"] = {{"count", 1}, {"period", 4}, {"period_max", 6}, {"period_unit", "h"}};
  WriteCase c = ParseWriteCase(j, "case.json");
  EXPECT_DOUBLE_EQ(c.dosage[0].per_day.min, 4);  // 24 h / 6 h
  EXPECT_DOUBLE_EQ(c.dosage[0].per_day.max, 6);  // 24 h / 4 h
  j["expected"]["dosage"].erase("frequency");
  j["expected"]["dosage"]["frequency_per_day"] = {{"min", 1}, {"max", 3}};
  c = ParseWriteCase(j, "case.json");
  EXPECT_DOUBLE_EQ(c.dosage[0].per_day.min, 1);
  EXPECT_DOUBLE_EQ(c.dosage[0].per_day.max, 3);
}

TEST(ParseWriteCase, NoRegimenAndTaperSteps) {
  json j = Case();
  j["expected"]["dosage"] = nullptr;
  j["expected"]["max_daily_dose"] = nullptr;
  EXPECT_TRUE(ParseWriteCase(j, "case.json").dosage.empty());
  j["expected"]["dosage"] =
      json::parse(R"([{"dose_value": 40, "dose_unit": "mg", "frequency_per_day": 1, "duration_days": 5},
                                           {"dose_value": 20, "dose_unit": "mg", "frequency_per_day": 1, "duration_days": 5}])");
  WriteCase c = ParseWriteCase(j, "case.json");
  ASSERT_EQ(c.dosage.size(), 2u);
  EXPECT_DOUBLE_EQ(*c.dosage[1].duration_days, 5);
}

TEST(ParseWriteCase, ErrorsNameTheKey) {
  json j = Case();
  j.erase("subject");
  EXPECT_EQ(Error(j), "case.json: subject is required");
  j = Case();
  j["expected"]["dosage"]["dose_unit"] = "mcg";
  EXPECT_EQ(Error(j),
            "case.json: expected.dosage.dose_unit \"mcg\" is not a UCUM dose unit of corpus/fhir/dose_units.tsv");
  j = Case();
  j["expected"]["dosage"]["dose_value"] = 0;
  EXPECT_EQ(Error(j), "case.json: expected.dosage.dose_value must be a positive number");
  j = Case();
  j["expected"]["dosage"]["frequency"] = {{"count", 1}};
  EXPECT_EQ(Error(j), "case.json: expected.dosage needs exactly one of frequency_per_day and frequency");
  j = Case();
  j["expected"]["dosage"].erase("frequency_per_day");
  j["expected"]["dosage"]["frequency"] = {{"count", 1}, {"period", 1}, {"period_unit", "fortnight"}};
  EXPECT_EQ(Error(j),
            "case.json: expected.dosage.frequency.period_unit must be a UCUM time unit (s, min, h, d, wk, mo, a)");
  j = Case();
  j["expected"]["dosage"] = json::array();
  EXPECT_EQ(Error(j), "case.json: expected.dosage must not be an empty list (use null)");
  j = Case();
  j["expected"]["max_daily_dose"] = {{"value", 20}, {"unit", "mg"}, {"period", "mo"}};
  EXPECT_EQ(Error(j), "case.json: expected.max_daily_dose.period must be \"d\" or \"wk\"");
  EXPECT_EQ(Error(json::array()), "case.json: the case must be a JSON object");
}

TEST(LoadWriteCase, EmbeddedCasesByIdOnly) {
  EXPECT_EQ(LoadWriteCase("tylenol-brand-name").code, "209387");
  try {
    LoadWriteCase("../write_cases/tylenol-brand-name");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown write case '../write_cases/tylenol-brand-name'");
  }
}

TEST(PerDayOf, UcumTimeUnits) {
  EXPECT_DOUBLE_EQ(PerDayOf(1, std::nullopt, 6, std::nullopt, "h")->max, 4);  // q6h
  EXPECT_DOUBLE_EQ(PerDayOf(3, std::nullopt, 1, std::nullopt, "d")->max, 3);  // TID
  EXPECT_DOUBLE_EQ(PerDayOf(1, std::nullopt, 1, std::nullopt, "wk")->max, 1.0 / 7);
  EXPECT_DOUBLE_EQ(PerDayOf(1, std::nullopt, 72, std::nullopt, "h")->max, 1.0 / 3);
  EXPECT_DOUBLE_EQ(PerDayOf(1, 2.0, 1, std::nullopt, "d")->max, 2);  // 1 to 2 a day
  EXPECT_DOUBLE_EQ(PerDayOf(1, 2.0, 1, std::nullopt, "d")->min, 1);
  EXPECT_FALSE(PerDayOf(1, std::nullopt, 0, std::nullopt, "h").has_value());
  EXPECT_FALSE(PerDayOf(1, std::nullopt, 1, std::nullopt, "mg").has_value());
}

}  // namespace
}  // namespace scribe::fhir
