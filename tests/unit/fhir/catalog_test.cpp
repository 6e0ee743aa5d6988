// Unit tests for fhir/catalog.h: the site catalog, the cited ceilings and the UCUM dose units,
// and their agreement with every write case.
#include "fhir/catalog.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fhir/write_case.h"
#include "fhir/write_score.h"

namespace scribe::fhir {
namespace {

using nlohmann::json;

const std::vector<std::string> kCases = {
    // groundeval (transcribed)
    "aspirin-active-daily", "tylenol-brand-name", "ibuprofen-two-tablets", "amoxicillin-completed-course",
    "lisinopril-stopped-cough", "metoprolol-er-strength", "ibuprofen-denied",
    // scribe-trials
    "insulin-glargine-units", "fluticasone-two-puffs", "methotrexate-weekly", "tramadol-prn-range", "prednisone-taper",
    "levothyroxine-mcg", "cetirizine-oral-solution", "lidocaine-patch", "zoloft-brand-only", "metformin-never-taken"};

TEST(DoseUnits, UcumCodesFamiliesAndRxNormSpellings) {
  const DoseUnits& u = DefaultDoseUnits();
  ASSERT_NE(u.Find("ug"), nullptr);
  EXPECT_EQ(u.Find("ug")->family, UnitFamily::kMass);
  EXPECT_DOUBLE_EQ(u.Find("ug")->factor, 0.001);
  EXPECT_DOUBLE_EQ(u.Find("g")->factor, 1000);
  EXPECT_EQ(u.Find("{puff}")->family, UnitFamily::kCount);
  EXPECT_EQ(u.Find("{tbl}")->family, UnitFamily::kCount);
  EXPECT_EQ(u.Find("[IU]")->family, UnitFamily::kUnit);
  EXPECT_EQ(u.Find("U")->family, UnitFamily::kUnit);
  EXPECT_DOUBLE_EQ(u.Find("h")->factor, 3600);
  EXPECT_EQ(u.Find("mcg"), nullptr);  // not UCUM
  EXPECT_EQ(u.Find("MG"), nullptr);   // UCUM is case-sensitive
  EXPECT_EQ(u.Find("{a}b}"), nullptr);
  EXPECT_EQ(u.Find("{}"), u.Find("{puff}"));
  EXPECT_EQ(u.FindRxNorm("MCG"), u.Find("ug"));
  EXPECT_EQ(u.FindRxNorm("UNT"), u.Find("[IU]"));
  EXPECT_EQ(u.FindRxNorm("ACTUAT")->family, UnitFamily::kCount);
  EXPECT_EQ(u.FindRxNorm("HR"), nullptr);
}

TEST(RxNormCatalog, ParsesRowsAndStrengths) {
  RxNormCatalog c = RxNormCatalog::Parse(
      "code\ttty\tdisplay\tingredients\tstrength\tdose_form\tbrand\tsource\n"
      "895994\tSCD\t120 ACTUAT fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler\tfluticasone\t0.044 "
      "MG/ACTUAT\tMetered Dose Inhaler\t\trxnorm-2025\n"
      "856987\tSCD\tAcetaminophen 300 MG / Hydrocodone Bitartrate 5 MG Oral Tablet\tacetaminophen|hydrocodone\t300 "
      "MG|5 "
      "MG\tOral Tablet\t\tsynthea\n",
      "t.tsv");
  ASSERT_EQ(c.size(), 2u);
  const CatalogDrug* f = c.Find("895994");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->strengths.size(), 1u);
  EXPECT_DOUBLE_EQ(f->strengths[0].value, 0.044);
  EXPECT_EQ(f->strengths[0].unit, "MG");
  EXPECT_EQ(f->strengths[0].per, "ACTUAT");
  const CatalogDrug* combo = c.Find("856987");
  EXPECT_EQ(combo->ingredients, (std::vector<std::string>{"acetaminophen", "hydrocodone"}));
  EXPECT_EQ(combo->strengths[1].per, "");
  EXPECT_EQ(c.Find("1"), nullptr);
}

TEST(RxNormCatalog, ParseErrorsNameTheLine) {
  auto error = [](const std::string& tsv) {
    try {
      RxNormCatalog::Parse(tsv, "t.tsv");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string header = "code\ttty\tdisplay\tingredients\tstrength\tdose_form\tbrand\tsource\n";
  EXPECT_EQ(error(header + "1\tSCD\tx\n"), "t.tsv line 2: expected 8 columns, got 3");
  EXPECT_EQ(error(header + "1\tSCD\tx\ty\tmany MG\tf\t\ts\n"), "t.tsv line 2: cannot read strength \"many MG\"");
  EXPECT_EQ(error(header + "1\tSCD\tx\ty\t1 MG\tf\t\ts\n1\tSCD\tx\ty\t1 MG\tf\t\ts\n"),
            "t.tsv line 3: duplicate code 1");
  EXPECT_EQ(error(""), "t.tsv: empty or not embedded");
}

TEST(RxNormCatalog, EmbeddedCatalog) {
  const RxNormCatalog& c = DefaultCatalog();
  EXPECT_GT(c.size(), 1000u);
  EXPECT_EQ(c.Find("310965")->display, "Ibuprofen 200 MG Oral Tablet");  // groundeval display
  EXPECT_EQ(c.Find("310965")->source, "groundeval");
  EXPECT_EQ(c.Find("197806")->display, "ibuprofen 600 MG Oral Tablet");  // RxNorm 2025
  EXPECT_EQ(c.Find("2123111")->source, "synthea");
  EXPECT_EQ(c.Find("208161")->brand, "Zoloft");
  EXPECT_EQ(c.Find("208161")->tty, "SBD");
  EXPECT_EQ(c.Find("847230")->strengths[0].unit, "UNT");
  EXPECT_EQ(c.Find("847230")->strengths[0].per, "ML");
}

TEST(DoseLimits, LookupByProductThenIngredient) {
  const DoseLimits& l = DefaultDoseLimits();
  const RxNormCatalog& c = DefaultCatalog();
  const DoseCeiling* ibuprofen = l.For(*c.Find("310965"));
  ASSERT_NE(ibuprofen, nullptr);
  EXPECT_EQ(ibuprofen->ingredient, "ibuprofen");
  EXPECT_DOUBLE_EQ(*ibuprofen->max, 3200);
  const DoseCeiling* aspirin = l.For(*c.Find("243670"));
  EXPECT_EQ(aspirin->rxcui, "243670");
  EXPECT_DOUBLE_EQ(*aspirin->max, 3888);
  EXPECT_FALSE(l.For(*c.Find("198145"))->max.has_value());  // prednisone: no labelled maximum
  EXPECT_EQ(l.For(*c.Find("856987")), nullptr);             // a combination product has no ingredient row
  for (const DoseCeiling& row : l.rows()) {
    EXPECT_EQ(row.source.rfind("DailyMed: ", 0), 0u) << row.source;
    if (!row.rxcui.empty()) {
      EXPECT_NE(c.Find(row.rxcui), nullptr) << row.rxcui;
    } else {
      bool used = false;
      for (const char* code : {"310965", "308192", "314076", "847230", "105585", "835603", "198145", "966222",
                               "1014673", "208161", "209387"})
        used = used || c.Find(code)->ingredients == std::vector<std::string>{row.ingredient};
      EXPECT_TRUE(used) << row.ingredient;  // an ingredient row names a catalog ingredient a case uses
    }
  }
}

TEST(DoseLimits, ParseErrors) {
  auto error = [](const std::string& rows) {
    try {
      DoseLimits::Parse("rxcui\tingredient\tmax\tunit\tperiod\tbasis\tsource\n" + rows, "m.tsv", DefaultDoseUnits());
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("1\tx\t10\tmg\td\tb\ts\n"), "m.tsv line 2: give exactly one of rxcui and ingredient");
  EXPECT_EQ(error("\tx\t-1\tmg\td\tb\ts\n"), "m.tsv line 2: max must be a positive number or empty");
  EXPECT_EQ(error("\tx\t10\tmcg\td\tb\ts\n"), "m.tsv line 2: unknown dose unit \"mcg\"");
  EXPECT_EQ(error("\tx\t10\tmg\tmonth\tb\ts\n"), "m.tsv line 2: period must be d or wk");
  EXPECT_EQ(error("\tx\t10\tmg\td\tb\t\n"), "m.tsv line 2: every row needs its basis and source");
  EXPECT_EQ(error("\tx\t10\tmg\td\tb\ts\n\tx\t20\tmg\td\tb\ts\n"), "m.tsv line 3: duplicate row for x");
}

// A MedicationStatement that encodes exactly what the case documents.
std::string ReferenceAnswer(const WriteCase& c) {
  json r = {
      {"resourceType", "MedicationStatement"},
      {"status", c.status},
      {"subject", {{"reference", c.subject}}},
      {"medicationCodeableConcept",
       {{"coding",
         {{{"system", "http://www.nlm.nih.gov/research/umls/rxnorm"}, {"code", c.code}, {"display", c.display}}}}}}};
  for (size_t i = 0; i < c.dosage.size(); ++i) {
    const ExpectedDose& d = c.dosage[i];
    // Doses per day as a repeat: the maximum, and the minimum through periodMax, in hours.
    json repeat = {{"frequency", 1}, {"period", 24 / d.per_day.max}, {"periodUnit", "h"}};
    if (d.per_day.min != d.per_day.max) repeat["periodMax"] = 24 / d.per_day.min;
    if (d.duration_days)
      repeat["boundsDuration"] = {{"value", *d.duration_days}, {"system", "http://unitsofmeasure.org"}, {"code", "d"}};
    r["dosage"].push_back(
        {{"sequence", i + 1},
         {"timing", {{"repeat", repeat}}},
         {"doseAndRate",
          {{{"doseQuantity", {{"value", d.value}, {"system", "http://unitsofmeasure.org"}, {"code", d.unit}}}}}}});
  }
  return r.dump();
}

TEST(WriteCases, EveryCaseAgreesWithTheCatalogAndTheCeilings) {
  size_t groundeval = 0;
  for (const std::string& id : kCases) {
    WriteCase c = LoadWriteCase(id);
    groundeval += c.source == "groundeval";
    const CatalogDrug* d = DefaultCatalog().Find(c.code);
    ASSERT_NE(d, nullptr) << id;
    EXPECT_EQ(d->display, c.display) << id;
    if (c.dosage.empty()) {
      EXPECT_FALSE(c.max_daily_dose.has_value()) << id;
      continue;
    }
    const DoseCeiling* ceiling = DefaultDoseLimits().For(*d);
    ASSERT_NE(ceiling, nullptr) << id;
    EXPECT_EQ(c.max_daily_dose.has_value(), ceiling->max.has_value()) << id;
    if (c.max_daily_dose && ceiling->max) {
      EXPECT_DOUBLE_EQ(c.max_daily_dose->value, *ceiling->max) << id;
      EXPECT_EQ(c.max_daily_dose->unit, ceiling->unit) << id;
      EXPECT_EQ(c.max_daily_dose->period, ceiling->period) << id;
    }
  }
  EXPECT_EQ(groundeval, 7u);
}

TEST(WriteCases, EveryCaseReferenceAnswerPassesAllFour) {
  for (const std::string& id : kCases) {
    WriteCase c = LoadWriteCase(id);
    WriteResult r = ScoreWrite(c, ReferenceAnswer(c), DefaultCatalog(), DefaultDoseLimits());
    EXPECT_TRUE(r.passed) << id << ": " << r.schema.reason << " | " << r.coding.reason << " | " << r.constraints.reason
                          << " | " << r.safety.reason;
  }
}

}  // namespace
}  // namespace scribe::fhir
