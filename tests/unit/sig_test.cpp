// Unit tests for sig.h: dose, frequency, route and action parsing with the compiled-in tables
// (corpus/rules/units.tsv, frequencies.tsv, routes.tsv, actions.tsv; docs/methodology.md §1).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "rules.h"
#include "sig.h"
#include "text.h"

namespace scribe {
namespace {

class SigTest : public ::testing::Test {
 protected:
  SigParser sig{DefaultRules()};

  void ExpectDose(std::string_view text, double value, const std::string& unit, const std::string& family) {
    auto d = sig.ParseDose(text);
    ASSERT_TRUE(d) << text;
    EXPECT_DOUBLE_EQ(d->value, value) << text;
    EXPECT_EQ(d->unit, unit) << text;
    EXPECT_EQ(d->family, family) << text;
  }
  void ExpectPerDay(std::string_view text, double per_day, bool prn) {
    auto f = sig.ParseFrequency(text);
    ASSERT_TRUE(f) << text;
    ASSERT_TRUE(f->per_day) << text;
    EXPECT_NEAR(*f->per_day, per_day, 1e-12) << text;
    EXPECT_EQ(f->prn, prn) << text;
  }
};

// ---------------------------------------------------------------- ParseDose

TEST_F(SigTest, SimpleMassDoses) {
  ExpectDose("50 mg", 50, "mg", "mass");
  ExpectDose("50mg", 50, "mg", "mass");
  ExpectDose("0.5 mg", 0.5, "mg", "mass");
  ExpectDose("1,000 mg", 1000, "mg", "mass");
  ExpectDose("25 milligrams", 25, "mg", "mass");
}

// Quantity words are recognised by the token's hash, or by the word when a token has none (made
// outside Tokenize): both read the same doses.
TEST_F(SigTest, QuantityWordsWithAndWithoutHashes) {
  for (bool hashed : {true, false}) {
    TokenList toks = Tokenize("take one and a half tablets, then half a tablet of 200 mg, an 81 mg tab, seven 5 mg");
    if (!hashed)
      for (Token& t : toks) t.norm_hash = t.folded_hash = 0;
    std::vector<Dose> doses = sig.FindDoses(toks, 0, toks.size());
    std::vector<std::string> texts;
    for (const Dose& d : doses) texts.push_back(d.Text());
    EXPECT_EQ(texts, (std::vector<std::string>{"1.5 tablet", "0.5 tablet", "200 mg", "81 mg", "35 mg"})) << hashed;
  }
}

// Fractions and quantity words next to words that start no quantity (turned away before a
// fraction is looked for) and punctuation: the same doses with and without token hashes.
TEST_F(SigTest, FractionsAmongWordsThatStartNoQuantity) {
  for (bool hashed : {true, false}) {
    TokenList toks = Tokenize(
        "take 1 1/2 tablets, 2 and 1/2 tabs; then 1/2 tab / 3 mg, a quarter tablet, one-half tablet, "
        "2 and one-half tablets, a tablet, three quarters of a tablet, twice 10 mg");
    if (!hashed)
      for (Token& t : toks) t.norm_hash = t.folded_hash = 0;
    std::vector<std::string> texts;
    for (const Dose& d : sig.FindDoses(toks, 0, toks.size())) texts.push_back(d.Text());
    EXPECT_EQ(texts, (std::vector<std::string>{"1.5 tablet", "2.5 tablet", "0.75 mg", "3 mg", "0.25 tablet",
                                               "0.5 tablet", "2.5 tablet", "1 tablet", "1 tablet", "20 mg"}))
        << hashed;
  }
}

TEST_F(SigTest, GramsConvertToMilligrams) {
  ExpectDose("1 g", 1000, "mg", "mass");
  ExpectDose("1.5 grams", 1500, "mg", "mass");
  ExpectDose("2 gm", 2000, "mg", "mass");
}

TEST_F(SigTest, MicrogramsStayMicrograms) {
  ExpectDose("75 mcg", 75, "mcg", "mass");
  ExpectDose("75 ug", 75, "mcg", "mass");
  ExpectDose("75 \xC2\xB5g", 75, "mcg", "mass");  // micro sign
  ExpectDose("75 \xCE\xBCg", 75, "mcg", "mass");  // Greek mu
  auto d = sig.ParseDose("75 mcg");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->Base(), 0.075);  // compared as mg
  EXPECT_EQ(d->Text(), "75 mcg");
}

TEST_F(SigTest, OtherUnitFamilies) {
  ExpectDose("20 mEq", 20, "meq", "meq");
  ExpectDose("10 units", 10, "unit", "unit");
  ExpectDose("5 mL", 5, "mL", "volume");
  ExpectDose("5 cc", 5, "mL", "volume");
  ExpectDose("2 puffs", 2, "puff", "count");
  ExpectDose("1 patch", 1, "patch", "count");
  auto puff = sig.ParseDose("2 puffs");
  ASSERT_TRUE(puff);
  EXPECT_EQ(puff->implied_route, "inhaled");
  EXPECT_EQ(puff->Base(), 2.0);
}

TEST_F(SigTest, CountsMultiplyStrengths) {
  ExpectDose("two 200 mg tablets", 400, "mg", "mass");
  ExpectDose("2 x 500 mg", 1000, "mg", "mass");
  ExpectDose("500 mg x 2", 1000, "mg", "mass");
  ExpectDose("500 mg 2 tabs", 1000, "mg", "mass");
  ExpectDose("half 10 mg", 5, "mg", "mass");
  auto d = sig.ParseDose("two 200 mg tablets");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->Text(), "400 mg");
  EXPECT_EQ(d->begin, 0u);  // the count is part of the dose
}

TEST_F(SigTest, DurationIsNotACount) {
  // "x 7 days" is a course length, not a multiplier
  ExpectDose("500 mg x 7 days", 500, "mg", "mass");
  ExpectDose("500 mg x 2 weeks", 500, "mg", "mass");
}

TEST_F(SigTest, RangesTakeTheUpperValue) {
  ExpectDose("1-2 puffs", 2, "puff", "count");
  ExpectDose("1 to 2 tablets", 2, "tablet", "count");
  ExpectDose("200-400 mg", 400, "mg", "mass");
}

TEST_F(SigTest, DoseChangeTakesTheNewDose) {
  ExpectDose("from 50 mg to 100 mg", 100, "mg", "mass");
  ExpectDose("50 mg -> 100 mg", 100, "mg", "mass");
  ExpectDose("50 mg \xE2\x86\x92 100 mg", 100, "mg", "mass");
  auto toks = Tokenize("from 50 mg to 100 mg");
  auto doses = sig.FindDoses(toks, 0, toks.size());
  ASSERT_EQ(doses.size(), 2u);
  EXPECT_DOUBLE_EQ(doses[0].value, 100);
  EXPECT_DOUBLE_EQ(doses[1].value, 50);
}

TEST_F(SigTest, DailyTotals) {
  auto d = sig.ParseDose("200 mg/day");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->value, 200);
  EXPECT_TRUE(d->per_day);
  EXPECT_EQ(d->end, 4u);  // 200 mg / day
  auto plain = sig.ParseDose("200 mg");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->per_day);
}

TEST_F(SigTest, ConcentrationsAndLabValuesAreNotDoses) {
  EXPECT_FALSE(sig.ParseDose("180 mg/dL"));
  EXPECT_FALSE(sig.ParseDose("4.1 mEq/L"));
  EXPECT_FALSE(sig.ParseDose("5 mg/kg"));
}

TEST_F(SigTest, UnparseableDoses) {
  EXPECT_FALSE(sig.ParseDose(""));
  EXPECT_FALSE(sig.ParseDose("a handful"));
  EXPECT_FALSE(sig.ParseDose("fifty-ish"));
  EXPECT_FALSE(sig.ParseDose("fifty mg"));  // a dose needs a written number
  EXPECT_FALSE(sig.ParseDose("50"));
  EXPECT_FALSE(sig.ParseDose("mg"));
}

TEST_F(SigTest, PrimaryPrefersMassOverCount) {
  EXPECT_FALSE(SigParser::Primary({}));
  Dose count;
  count.value = 2;
  count.unit = "tablet";
  count.family = "count";
  Dose mass;
  mass.value = 50;
  mass.unit = "mg";
  mass.family = "mass";
  auto p = SigParser::Primary({count, mass});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->unit, "mg");
  auto only = SigParser::Primary({count});
  ASSERT_TRUE(only);
  EXPECT_EQ(only->unit, "tablet");
}

TEST_F(SigTest, DoseText) {
  Dose d;
  d.value = 0.075;
  d.unit = "mg";
  EXPECT_EQ(d.Text(), "0.075 mg");
  d.value = 1000;
  EXPECT_EQ(d.Text(), "1000 mg");
  d.value = 75;
  d.unit = "mcg";
  EXPECT_DOUBLE_EQ(d.Base(), 0.075);
}

// ---------------------------------------------------------------- quantities, ranges, per-count strengths

TEST_F(SigTest, FractionsAndWordQuantities) {
  ExpectDose("half a tablet", 0.5, "tablet", "count");
  ExpectDose("half tablet", 0.5, "tablet", "count");
  ExpectDose("1/2 tab", 0.5, "tablet", "count");
  ExpectDose("\xC2\xBD tab", 0.5, "tablet", "count");  // ½
  ExpectDose("one and a half tablets", 1.5, "tablet", "count");
  ExpectDose("1 1/2 tabs", 1.5, "tablet", "count");
  ExpectDose("1 and 1/2 tablets", 1.5, "tablet", "count");
  ExpectDose("one-half tablet", 0.5, "tablet", "count");
  ExpectDose("a tablet", 1, "tablet", "count");
  ExpectDose("two capsules", 2, "capsule", "count");
  ExpectDose("3/4 tab", 0.75, "tablet", "count");
  // a fraction is two numbers around "/" with no spaces, a denominator of 2 to 8
  EXPECT_FALSE(sig.ParseDose("12/20 tablets")->low);
  ExpectDose("12/20 tablets", 20, "tablet", "count");
}

TEST_F(SigTest, RangesKeepBothEnds) {
  auto d = sig.ParseDose("1-2 tablets");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->value, 2);
  ASSERT_TRUE(d->low);
  EXPECT_DOUBLE_EQ(*d->low, 1);
  EXPECT_TRUE(d->IsRange());
  EXPECT_EQ(d->Text(), "1-2 tablet");
  auto dash = sig.ParseDose("1\xE2\x80\x93" "2 tablets");  // en dash
  ASSERT_TRUE(dash && dash->low);
  EXPECT_DOUBLE_EQ(*dash->low, 1);
  auto words = sig.ParseDose("one to two tablets");
  ASSERT_TRUE(words && words->low);
  EXPECT_DOUBLE_EQ(*words->low, 1);
  EXPECT_DOUBLE_EQ(words->value, 2);
  auto half = sig.ParseDose("1/2 to 1 tab");
  ASSERT_TRUE(half && half->low);
  EXPECT_DOUBLE_EQ(*half->low, 0.5);
  EXPECT_DOUBLE_EQ(half->value, 1);
  auto mass = sig.ParseDose("5-10 mg");
  ASSERT_TRUE(mass && mass->low);
  EXPECT_DOUBLE_EQ(mass->BaseLow(), 5);
  EXPECT_DOUBLE_EQ(mass->Base(), 10);
  // "from 50 to 100 mg" is a change, not a range
  auto change = sig.ParseDose("from 50 to 100 mg");
  ASSERT_TRUE(change);
  EXPECT_FALSE(change->low);
  EXPECT_DOUBLE_EQ(change->value, 100);
  EXPECT_FALSE(sig.ParseDose("50 mg")->low);
}

TEST_F(SigTest, SameDoseComparesBothEndsOfARange) {
  auto range = *sig.ParseDose("1-2 tablets");
  auto same = *sig.ParseDose("one to two tabs");
  auto two = *sig.ParseDose("2 tablets");
  auto one = *sig.ParseDose("1 tablet");
  EXPECT_TRUE(SameDose(range, same, 0.01));
  EXPECT_FALSE(SameDose(range, two, 0.01));
  EXPECT_FALSE(SameDose(two, range, 0.01));
  EXPECT_FALSE(SameDose(range, one, 0.01));
  EXPECT_TRUE(SameDose(*sig.ParseDose("0.088 mg"), *sig.ParseDose("88 mcg"), 0.01));
  EXPECT_FALSE(SameDose(*sig.ParseDose("2 puffs"), two, 0.01));  // counts compare only in the same unit
  EXPECT_FALSE(SameDose(*sig.ParseDose("50 mg"), *sig.ParseDose("50 mL"), 0.01));
}

TEST_F(SigTest, StrengthPerCountUnit) {
  auto d = sig.ParseDose("90 mcg/actuation");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->value, 90);
  EXPECT_EQ(d->per, "puff");
  EXPECT_EQ(d->end, 4u);  // 90 mcg / actuation
  EXPECT_EQ(sig.ParseDose("5 mg/tab")->per, "tablet");
  EXPECT_EQ(sig.ParseDose("50 mcg/spray")->per, "spray");
  // a strength written per unit multiplies a count before it: it cannot be a total
  ExpectDose("2 puffs (90 mcg/actuation)", 180, "mcg", "mass");
  // a plain strength after a count is the total ("Take 1 tablet (5 mg total)")
  ExpectDose("take 2 capsules 800 mg", 800, "mg", "mass");
  // a parenthetical count explains the dose
  ExpectDose("100 mg (2 tablets)", 100, "mg", "mass");
  ExpectDose("500 mg, take 2 tablets", 1000, "mg", "mass");
  ExpectDose("90 mcg 2 puffs", 180, "mcg", "mass");
}

TEST_F(SigTest, BareCountsBeforeARouteOrFrequency) {
  ExpectDose("take one daily", 1, "each", "count");
  ExpectDose("1 po bid", 1, "each", "count");
  ExpectDose("1/2 po bid", 0.5, "each", "count");
  auto range = sig.ParseDose("1-2 by mouth every 6 hours");
  ASSERT_TRUE(range && range->low);
  EXPECT_EQ(range->unit, "each");
  // the number of a frequency, or after a slash, is no dose
  EXPECT_FALSE(sig.ParseDose("2 x daily"));
  EXPECT_FALSE(sig.ParseDose("3 times a day"));
  EXPECT_FALSE(sig.ParseDose("BP 120/80 daily"));
  EXPECT_FALSE(sig.ParseDose("walks 2 miles daily"));
}

TEST_F(SigTest, LimitsAndQuantitiesAreNotDoses) {
  EXPECT_FALSE(sig.ParseDose("maximum daily dose 8 tablets"));
  EXPECT_FALSE(sig.ParseDose("mdd 1.5 mg per day"));
  EXPECT_FALSE(sig.ParseDose("do not exceed 4 g"));
  EXPECT_FALSE(sig.ParseDose("dispense 21 tabs"));
  EXPECT_FALSE(sig.ParseDose("#30 tablets"));
  ExpectDose("take 1 tablet twice daily, max 2 tabs/day", 1, "tablet", "count");
}

TEST_F(SigTest, PrimaryPrefersDrugAmountOverVehicleAndDailyTotals) {
  // mass before volume: "3 ml = 150 mg" is 150 mg
  ExpectDose("take 3 ml by mouth daily 3 ml = 150 mg", 150, "mg", "mass");
  // a daily total ("mg/day", "mg per day") only when nothing else is written
  ExpectDose("1 tablet three times daily, 1.5 mg per day", 1, "tablet", "count");
  auto per = sig.ParseDose("50 mg per day");
  ASSERT_TRUE(per);
  EXPECT_TRUE(per->per_day);
  EXPECT_EQ(per->end, 4u);
  auto total = sig.ParseDose("200 mg/day");
  ASSERT_TRUE(total);
  EXPECT_TRUE(total->per_day);
}

TEST_F(SigTest, VolumesInHouseholdUnits) {
  ExpectDose("1 teaspoon", 5, "mL", "volume");
  ExpectDose("2 tsp", 10, "mL", "volume");
  ExpectDose("1 tablespoon", 15, "mL", "volume");
  ExpectDose("8 oz", 240, "mL", "volume");
}

// ---------------------------------------------------------------- ParseFrequency

TEST_F(SigTest, DailyFrequencies) {
  ExpectPerDay("once daily", 1, false);
  ExpectPerDay("daily", 1, false);
  ExpectPerDay("qd", 1, false);
  ExpectPerDay("every morning", 1, false);
  ExpectPerDay("qhs", 1, false);
  ExpectPerDay("at bedtime", 1, false);
  ExpectPerDay("twice daily", 2, false);
  ExpectPerDay("BID", 2, false);
  ExpectPerDay("b.i.d.", 2, false);
  ExpectPerDay("three times a day", 3, false);
  ExpectPerDay("TID", 3, false);
  ExpectPerDay("QID", 4, false);
  ExpectPerDay("four times a day", 4, false);
}

// Regression test, bug fixed (rules.cpp TsvRows): every line starting with '#' is skipped as a comment, so the
// frequencies.tsv rows whose pattern starts with the '#' number slot ("# times daily",
// "# x a day", "# times a week", "# x per week" …) are never loaded. "4 times daily" falls back
// to "daily" (actual 1/day, expected 4), "five times a day" to "a day" (actual 1, expected 5),
// and "3 times a week" does not parse at all (so a trial whose ground truth says it is rejected).
TEST_F(SigTest, FrequenciesStartingWithANumberSlot) {
  ExpectPerDay("4 times daily", 4, false);
  ExpectPerDay("five times a day", 5, false);
  ExpectPerDay("2 x daily", 2, false);
  ExpectPerDay("3 times a week", 3.0 / 7.0, false);
  ExpectPerDay("2 x per week", 2.0 / 7.0, false);
}

TEST_F(SigTest, IntervalFrequencies) {
  ExpectPerDay("q8h", 3, false);
  ExpectPerDay("q 6 h", 4, false);
  ExpectPerDay("every 12 hours", 2, false);
  ExpectPerDay("every two hours", 12, false);
  ExpectPerDay("every 4-6 hours", 6, false);
  ExpectPerDay("every 4 to 6 hours", 6, false);
  ExpectPerDay("q4-6h prn", 6, true);
  ExpectPerDay("every 4 to 6 hours as needed", 6, true);
  ExpectPerDay("hourly", 24, false);
}

TEST_F(SigTest, LessThanDailyFrequencies) {
  ExpectPerDay("every other day", 0.5, false);
  ExpectPerDay("qod", 0.5, false);
  ExpectPerDay("every 3 days", 1.0 / 3.0, false);
  ExpectPerDay("weekly", 1.0 / 7.0, false);
  ExpectPerDay("once a week", 1.0 / 7.0, false);
  ExpectPerDay("twice weekly", 2.0 / 7.0, false);
  ExpectPerDay("every 2 weeks", 1.0 / 14.0, false);
  ExpectPerDay("monthly", 1.0 / 30.0, false);
}

TEST_F(SigTest, MonthsCountThirtyDays) {
  ExpectPerDay("monthly", 1.0 / 30.0, false);
  ExpectPerDay("once a month", 1.0 / 30.0, false);
  ExpectPerDay("every 3 months", 1.0 / 90.0, false);
  ExpectPerDay("every other month", 1.0 / 60.0, false);
  ExpectPerDay("twice a month", 2.0 / 30.0, false);
  ExpectPerDay("2 times a month", 2.0 / 30.0, false);
}

TEST_F(SigTest, UkAndLatinAbbreviations) {
  ExpectPerDay("bd", 2, false);
  ExpectPerDay("b.d.", 2, false);
  ExpectPerDay("tds", 3, false);
  ExpectPerDay("qds", 4, false);
  ExpectPerDay("mane", 1, false);
  ExpectPerDay("nocte", 1, false);
  ExpectPerDay("alternate days", 0.5, false);
  ExpectPerDay("4 hourly", 6, false);
  ExpectPerDay("4-6 hourly", 6, false);
  ExpectPerDay("8hrly", 3, false);
  ExpectPerDay("tiw", 3.0 / 7.0, false);
  ExpectPerDay("qiw", 4.0 / 7.0, false);
  ExpectPerDay("q.4.d", 0.25, false);
  ExpectPerDay("5x/day", 5, false);
  ExpectPerDay("3 times/day", 3, false);
  ExpectPerDay("3 times every week", 3.0 / 7.0, false);
  auto required = sig.ParseFrequency("if required");
  ASSERT_TRUE(required);
  EXPECT_FALSE(required->per_day);
  EXPECT_TRUE(required->prn);
}

TEST_F(SigTest, TimesOfDayAddUp) {
  ExpectPerDay("one in the morning and one at night", 2, false);
  ExpectPerDay("in the morning, at noon and at bedtime", 3, false);
  ExpectPerDay("before breakfast before lunch before evening meal and at bedtime", 4, false);
  ExpectPerDay("every night at bedtime", 1, false);  // one time of day named twice
  ExpectPerDay("every morning and evening", 2, false);
  // only while every frequency is a time of day: the first frequency is used otherwise
  ExpectPerDay("every morning, then twice daily", 1, false);
  ExpectPerDay("twice daily in the evening", 2, false);
  ExpectPerDay("once a day first thing in the morning", 1, false);
}

TEST_F(SigTest, Weekdays) {
  ExpectPerDay("on Monday, Wednesday and Friday", 3.0 / 7.0, false);
  ExpectPerDay("every Sunday", 1.0 / 7.0, false);
  ExpectPerDay("weekly on Mondays", 1.0 / 7.0, false);  // a written frequency wins
}

TEST_F(SigTest, PrnOfALaterStep) {
  // "then" after the first frequency starts a later step: its PRN is not the first step's
  ExpectPerDay("two tablets every two days and then 1 tablet as needed", 0.5, false);
  ExpectPerDay("2 tabs q6h prn, then 1 tab daily", 4, true);
  ExpectPerDay("as needed: 1 tablet every 6 hours", 4, true);
  auto later = sig.ParseFrequency("take 2 tablets now, then 1 tablet every 6 hours as needed");
  ASSERT_TRUE(later);
  EXPECT_TRUE(later->prn);  // the first frequency comes after "then": its PRN counts
}

TEST_F(SigTest, PrnOnly) {
  for (const char* text : {"prn", "PRN", "as needed", "p.r.n.", "when required"}) {
    auto f = sig.ParseFrequency(text);
    ASSERT_TRUE(f) << text;
    EXPECT_FALSE(f->per_day) << text;
    EXPECT_TRUE(f->prn) << text;
  }
  ExpectPerDay("daily as needed", 1, true);
}

TEST_F(SigTest, FrequencyTextIsTheTrimmedInput) {
  auto f = sig.ParseFrequency("  q4-6h prn ");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->text, "q4-6h prn");
}

TEST_F(SigTest, UnparseableFrequencies) {
  EXPECT_FALSE(sig.ParseFrequency(""));
  EXPECT_FALSE(sig.ParseFrequency("whenever"));
  EXPECT_FALSE(sig.ParseFrequency("sometimes"));
  EXPECT_FALSE(sig.ParseFrequency("50 mg"));
}

TEST_F(SigTest, FindFrequencyInText) {
  const std::string text = "sertraline 50 mg every morning, then twice daily";
  auto toks = Tokenize(text);
  Frequency f = sig.FindFrequency(toks, 0, toks.size(), text);
  ASSERT_TRUE(f.per_day);
  EXPECT_DOUBLE_EQ(*f.per_day, 1.0);  // the first frequency found
  EXPECT_EQ(f.text, "every morning");
  EXPECT_EQ(f.begin, 3u);
  EXPECT_EQ(f.end, 5u);
  EXPECT_FALSE(f.prn);

  const std::string prn_text = "ibuprofen prn";
  auto prn_toks = Tokenize(prn_text);
  Frequency p = sig.FindFrequency(prn_toks, 0, prn_toks.size(), prn_text);
  EXPECT_FALSE(p.per_day);
  EXPECT_TRUE(p.prn);
  EXPECT_EQ(p.text, "prn");

  Frequency none = sig.FindFrequency(prn_toks, 0, 1, prn_text);
  EXPECT_FALSE(none.per_day);
  EXPECT_FALSE(none.prn);
  EXPECT_EQ(none.text, "");
}

// ---------------------------------------------------------------- ParseRoute

TEST_F(SigTest, Routes) {
  struct Case { const char* text; const char* route; };
  for (const Case& c : {Case{"PO", "oral"}, Case{"p.o.", "oral"}, Case{"by mouth", "oral"}, Case{"orally", "oral"},
                        Case{"SL", "sublingual"}, Case{"under the tongue", "sublingual"}, Case{"IM", "intramuscular"},
                        Case{"IV", "intravenous"}, Case{"SC", "subcutaneous"}, Case{"sub-q", "subcutaneous"},
                        Case{"inhaled", "inhaled"}, Case{"via nebulizer", "inhaled"}, Case{"topical", "topical"},
                        Case{"to affected area", "topical"}, Case{"in each nostril", "nasal"},
                        Case{"transdermal", "transdermal"}, Case{"PR", "rectal"}, Case{"in both eyes", "ophthalmic"}}) {
    auto r = sig.ParseRoute(c.text);
    ASSERT_TRUE(r) << c.text;
    EXPECT_EQ(*r, c.route) << c.text;
  }
}

TEST_F(SigTest, MoreRoutes) {
  struct Case { const char* text; const char* route; };
  for (const Case& c : {Case{"into both ears", "otic"}, Case{"in surgical eye", "ophthalmic"},
                        Case{"by each nostril route", "nasal"}, Case{"via nebulizer", "inhaled"},
                        Case{"by nebulization", "inhaled"}, Case{"inh", "inhaled"}, Case{"to the skin", "topical"},
                        Case{"under tongue", "sublingual"}, Case{"IV push", "intravenous"}, Case{"per rectum", "rectal"},
                        Case{"via g-tube", "enteral"}, Case{"buccally", "buccal"}}) {
    auto r = sig.ParseRoute(c.text);
    ASSERT_TRUE(r) << c.text;
    EXPECT_EQ(*r, c.route) << c.text;
  }
}

TEST_F(SigTest, UnknownRoutes) {
  EXPECT_FALSE(sig.ParseRoute("by osmosis"));
  EXPECT_FALSE(sig.ParseRoute(""));
  EXPECT_FALSE(sig.ParseRoute("daily"));
}

TEST_F(SigTest, FirstRouteInText) {
  auto r = sig.ParseRoute("take orally, not IV");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "oral");
}

// ---------------------------------------------------------------- one sig

class ReadSigTest : public SigTest {
 protected:
  TokenList toks;
  std::string text;
  // Reads `t` as the sig of the drug named by tokens [b, e).
  Sig Read(const std::string& t, size_t b, size_t e) {
    text = t;
    toks = Tokenize(text);
    return sig.ReadSig(toks, 0, b, e, toks.size(), text);
  }
};

TEST_F(ReadSigTest, CountBeforeTheNameMultipliesTheStrengthAfterIt) {
  // Take 2 tablets of acetaminophen 500 mg every 6 hours
  Sig s = Read("Take 2 tablets of acetaminophen 500 mg every 6 hours", 4, 5);
  ASSERT_TRUE(s.dose);
  EXPECT_EQ(s.dose->Text(), "1000 mg");
  EXPECT_EQ(s.dose->begin, 1u);  // "2 tablets of acetaminophen 500 mg"
  EXPECT_EQ(s.dose->end, 7u);
  ASSERT_TRUE(s.frequency.per_day);
  EXPECT_DOUBLE_EQ(*s.frequency.per_day, 4);
  EXPECT_EQ(s.route, "oral");
  ASSERT_EQ(s.doses.size(), 3u);  // 1000 mg, 500 mg, 2 tablets
  EXPECT_EQ(s.doses[1].Text(), "500 mg");
  EXPECT_EQ(s.doses[2].Text(), "2 tablet");

  Sig half = Read("half a tablet of metoprolol tartrate 50 mg", 4, 6);
  ASSERT_TRUE(half.dose);
  EXPECT_EQ(half.dose->Text(), "25 mg");
  Sig puffs = Read("2 puffs of albuterol 90 mcg/actuation", 3, 4);
  ASSERT_TRUE(puffs.dose);
  EXPECT_EQ(puffs.dose->Text(), "180 mcg");
  EXPECT_EQ(puffs.route, "inhaled");
  Sig range = Read("1-2 tablets of acetaminophen 500 mg", 5, 6);
  ASSERT_TRUE(range.dose);
  EXPECT_EQ(range.dose->Text(), "500-1000 mg");
  Sig verb = Read("take 2 Tylenol 500 mg", 2, 3);  // a bare count after a dose verb
  ASSERT_TRUE(verb.dose);
  EXPECT_EQ(verb.dose->Text(), "1000 mg");
  // a count not bound to the name does not multiply: "2 tablets" belongs to the later step
  Sig later = Read("1 tablet of atorvastatin every day and then 2 tablets every week", 3, 4);
  ASSERT_TRUE(later.dose);
  EXPECT_EQ(later.dose->Text(), "1 tablet");
  ASSERT_TRUE(later.frequency.per_day);
  EXPECT_DOUBLE_EQ(*later.frequency.per_day, 1);
}

TEST_F(ReadSigTest, RoutePrecedence) {
  EXPECT_EQ(Read("inhale 2 puffs by mouth twice daily", 0, 0).route, "inhaled");  // oral inhalation
  EXPECT_EQ(Read("1 cap inhale daily", 0, 0).route, "inhaled");                    // verb over a capsule's oral
  EXPECT_EQ(Read("apply 1 patch daily", 0, 0).route, "transdermal");               // a patch's route over a verb
  EXPECT_EQ(Read("apply twice daily", 0, 0).route, "topical");
  EXPECT_EQ(Read("1 tablet sublingual bid", 0, 0).route, "sublingual");            // a written route over a tablet's oral
  EXPECT_EQ(Read("take 1 tablet daily", 0, 0).route, "oral");
  EXPECT_FALSE(Read("use as directed", 0, 0).route);
}

// ---------------------------------------------------------------- vocabulary

TEST_F(SigTest, SpellingTolerance) {
  EXPECT_EQ(sig.CorrectSpelling("tiems"), "times");
  EXPECT_EQ(sig.CorrectSpelling("tmies"), "times");
  EXPECT_EQ(sig.CorrectSpelling("talbet"), "tablet");
  EXPECT_EQ(sig.CorrectSpelling("tabet"), "tablet");
  EXPECT_EQ(sig.CorrectSpelling("wekes"), "weeks");
  EXPECT_EQ(sig.CorrectSpelling("dya"), "day");     // three letters: one transposition only
  EXPECT_EQ(sig.CorrectSpelling("dax"), "");
  EXPECT_EQ(sig.CorrectSpelling("times"), "");      // already a sig word
  EXPECT_EQ(sig.CorrectSpelling("xyzzy"), "");
  EXPECT_EQ(sig.CorrectSpelling("Tiems"), "");      // callers pass lower case
}

TEST_F(SigTest, SigWords) {
  for (const char* w : {"times", "tablet", "daily", "bid", "prn", "mouth", "take", "two"}) EXPECT_TRUE(sig.IsSigWord(w)) << w;
  for (const char* w : {"", "tiems", "rash", "Times", "times ", "sertraline"}) EXPECT_FALSE(sig.IsSigWord(w)) << w;
}

TEST_F(SigTest, GluedWords) {
  using V = std::vector<std::string>;
  EXPECT_EQ(sig.SplitGlued("tidprnas"), (V{"tid", "prn", "as"}));
  EXPECT_EQ(sig.SplitGlued("bidx"), (V{"bid", "x"}));
  EXPECT_EQ(sig.SplitGlued("dailyx"), (V{"daily", "x"}));
  EXPECT_EQ(sig.SplitGlued("mgbd"), (V{"mg", "bd"}));
  EXPECT_EQ(sig.SplitGlued("intprnas"), (V{"int", "prn", "as"}));          // unknown piece at the start
  EXPECT_EQ(sig.SplitGlued("prnanxiety"), (V{"prn", "anxiety"}));          // unknown piece at the end
  EXPECT_EQ(sig.SplitGlued("tidwminstror"), (V{"tid", "wminstror"}));
  EXPECT_EQ(sig.SplitGlued("asthe"), V{});                                 // connectives only
  EXPECT_EQ(sig.SplitGlued("zzzz"), V{});
  EXPECT_EQ(sig.SplitGlued("bid"), V{});
}

TEST_F(SigTest, RepairWordRespellsElseSplits) {
  using V = std::vector<std::string>;
  auto check = [&](std::string_view word, const std::string& respelled, const V& pieces) {
    SigParser::WordRepair r = sig.RepairWord(word);
    EXPECT_EQ(r.respelled, respelled) << word;
    EXPECT_EQ(r.pieces, pieces) << word;
  };
  for (int pass = 0; pass < 2; ++pass) {  // worked out, then remembered
    check("tiems", "times", {});
    check("tidprnas", "", V{"tid", "prn", "as"});  // glue pieces only: never respelled
    check("intprnas", "", V{"int", "prn", "as"});
    check("prnanxiety", "", V{"prn", "anxiety"});
    check("xyzzy", "", {});
    check("times", "", {});
  }
}

// The memo is shared by every thread grading at once: each gets the answers one thread alone gets.
TEST_F(SigTest, RepairWordFromManyThreads) {
  const std::vector<std::string> words = {"tiems", "tidprnas", "intprnas", "prnanxiety", "xyzzy", "talbet",
                                          "bidx", "dailyx", "mgbd", "wekes", "zzzz", "tidwminstror"};
  std::vector<SigParser::WordRepair> alone;
  for (const std::string& w : words) {
    SigParser::WordRepair r;
    std::vector<std::string> pieces = sig.SplitGlued(w);
    bool glue_only = !pieces.empty() && std::all_of(pieces.begin(), pieces.end(), [&](const std::string& p) {
      return sig.IsGluePiece(p);
    });
    if (!glue_only) r.respelled = sig.CorrectSpelling(w);
    if (r.respelled.empty() && pieces.size() >= 2) r.pieces = pieces;
    alone.push_back(r);
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < mismatches.size(); ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round)
        for (size_t i = 0; i < words.size(); ++i) {
          size_t w = (i + t * 3) % words.size();  // each thread from a different starting point
          SigParser::WordRepair r = sig.RepairWord(words[w]);
          if (r.respelled != alone[w].respelled || r.pieces != alone[w].pieces) ++mismatches[t];
        }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
  EXPECT_EQ(alone[0].respelled, "times");
  EXPECT_EQ(alone[5].respelled, "tablet");
  EXPECT_EQ(alone[6].pieces, (std::vector<std::string>{"bid", "x"}));
}

TEST_F(SigTest, SigAbbreviations) {
  auto toks = Tokenize("tiotropium inh daily po tabs stopped");
  EXPECT_FALSE(sig.IsSigAbbreviation(toks, 0));
  EXPECT_TRUE(sig.IsSigAbbreviation(toks, 1));   // route
  EXPECT_TRUE(sig.IsSigAbbreviation(toks, 2));   // frequency
  EXPECT_TRUE(sig.IsSigAbbreviation(toks, 3));
  EXPECT_TRUE(sig.IsSigAbbreviation(toks, 4));   // unit
  EXPECT_FALSE(sig.IsSigAbbreviation(toks, 5));  // an action is not sig vocabulary
  EXPECT_FALSE(sig.IsSigAbbreviation(toks, 9));
  EXPECT_TRUE(sig.IsDoseVerb(Tokenize("Take")[0]));
}

// ---------------------------------------------------------------- actions

TEST_F(SigTest, ActionBeforeTheDrug) {
  auto toks = Tokenize("started sertraline");
  auto a = sig.FindActionBefore(toks, 0, 1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->action, "start");
  EXPECT_EQ(a->begin, 0u);
  EXPECT_EQ(a->end, 1u);

  // the last "before" phrase is the nearest one
  auto held = Tokenize("stopped and then started sertraline");
  auto c = sig.FindActionBefore(held, 0, 4);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->action, "start");

  // "off" only counts after the drug
  auto off = Tokenize("off sertraline");
  EXPECT_FALSE(sig.FindActionBefore(off, 0, 1));
  // multi-word phrases
  auto no_longer = Tokenize("no longer taking sertraline");
  auto d = sig.FindActionBefore(no_longer, 0, 3);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->action, "stop");
  auto titrate = Tokenize("titrate up sertraline");
  auto e = sig.FindActionBefore(titrate, 0, 2);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->action, "increase");
}

TEST_F(SigTest, ActionAfterTheDrug) {
  auto toks = Tokenize("sertraline was stopped");
  auto a = sig.FindActionAfter(toks, 1, toks.size());
  ASSERT_TRUE(a);
  EXPECT_EQ(a->action, "stop");
  EXPECT_EQ(a->begin, 2u);

  auto off = Tokenize("sertraline off");
  auto b = sig.FindActionAfter(off, 1, off.size());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->action, "stop");

  auto dcd = Tokenize("sertraline dc'd");
  auto c = sig.FindActionAfter(dcd, 1, dcd.size());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->action, "stop");

  // "start" is a before-only phrase
  auto start = Tokenize("sertraline start");
  EXPECT_FALSE(sig.FindActionAfter(start, 1, start.size()));

  // the first "after" phrase wins
  auto first = Tokenize("sertraline increased then stopped");
  auto d = sig.FindActionAfter(first, 1, first.size());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->action, "increase");
}

}  // namespace
}  // namespace scribe
