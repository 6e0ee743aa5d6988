// Unit tests for trial.h: trial YAML loading and validation (docs/trial-schema.md).
// Every error message is "<file>: <key path>: <problem>", as the schema's loader rules say.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hash.h"
#include "note/note.h"
#include "rules.h"
#include "terminology.h"
#include "trial.h"

namespace scribe {
namespace {

// The plain seed-000 form (tests/fixtures/corpus_extra/01-sore-throat.yaml).
const std::string kSeed = R"(id: 01-sore-throat
title: Sore throat
difficulty: easy
summary: Adult with viral pharyngitis.
encounter_text: |
  Doctor: What brings you in?
  Patient: Sore throat for two days. No fever. I take ibuprofen 400 mg three times a day.
instructions: Write a SOAP note.
ground_truth:
  meds:
    - {name: ibuprofen, dose: 400 mg, frequency: three times a day, route: oral, action: continue}
  allergies: []
  mental_flags: []
  deferred_dx: []
  fabrication_traps: [fever]
weights: {drug: 0.7, mental: 0.0, fabrication: 0.3}
)";

Trial Parse(const std::string& yaml) { return ParseTrial(yaml, "t.yaml", DefaultRules(), DefaultTerminology()); }

std::string Error(const std::string& yaml) {
  try {
    Parse(yaml);
  } catch (const TrialError& e) {
    return e.what();
  }
  return "(no error)";
}

// kSeed with one exact substring replaced (the substring must exist).
std::string With(const std::string& from, const std::string& to, const std::string& base = kSeed) {
  size_t p = base.find(from);
  if (p == std::string::npos) throw std::logic_error("test bug: '" + from + "' not in the base YAML");
  return base.substr(0, p) + to + base.substr(p + from.size());
}

const std::string kMed = "    - {name: ibuprofen, dose: 400 mg, frequency: three times a day, route: oral, action: continue}\n";
std::string WithMed(const std::string& med_line) { return With(kMed, med_line); }
const std::string kWeights = "weights: {drug: 0.7, mental: 0.0, fabrication: 0.3}\n";
std::string Append(const std::string& extra) { return kSeed + extra; }

// ---------------------------------------------------------------- the seed shape

TEST(TrialLoad, SeedShapedFileLoads) {
  Trial t = Parse(kSeed);
  EXPECT_EQ(t.id, "01-sore-throat");
  EXPECT_EQ(t.title, "Sore throat");
  EXPECT_EQ(t.difficulty, "easy");
  EXPECT_EQ(t.summary, "Adult with viral pharyngitis.");
  EXPECT_EQ(t.encounter_text,
            "Doctor: What brings you in?\nPatient: Sore throat for two days. No fever. I take ibuprofen 400 mg three "
            "times a day.\n");
  EXPECT_EQ(t.instructions, "Write a SOAP note.");
  EXPECT_EQ(t.source_file, "t.yaml");
  EXPECT_EQ(t.version_hash, Sha256Hex(kSeed));
  ASSERT_EQ(NoteOf(t).meds.size(), 1u);
  const ExpectedMed& m = NoteOf(t).meds.at(0);
  EXPECT_EQ(m.name, "ibuprofen");
  EXPECT_EQ(m.dose_text, "400 mg");
  ASSERT_TRUE(m.dose);
  EXPECT_DOUBLE_EQ(m.dose->value, 400);
  EXPECT_EQ(m.dose->unit, "mg");
  ASSERT_TRUE(m.frequency && m.frequency->per_day);
  EXPECT_DOUBLE_EQ(*m.frequency->per_day, 3);
  EXPECT_FALSE(m.frequency->prn);
  EXPECT_EQ(m.frequency->text, "three times a day");
  EXPECT_EQ(m.route.value_or("(none)"), "oral");
  EXPECT_EQ(m.action.value_or("(none)"), "continue");
  EXPECT_EQ(m.keys, (std::vector<std::string>{"5640"}));
  EXPECT_EQ(m.drug, "ibuprofen");
  EXPECT_EQ(m.rxcui, "5640");
  EXPECT_TRUE(m.in_terminology);
  EXPECT_TRUE(NoteOf(t).allergies.empty());
  EXPECT_TRUE(NoteOf(t).mental_flags.empty());
  EXPECT_TRUE(NoteOf(t).deferred_dx.empty());
  ASSERT_EQ(NoteOf(t).traps.size(), 1u);
  EXPECT_EQ(NoteOf(t).traps[0].phrase, "fever");
  EXPECT_TRUE(NoteOf(t).traps[0].variants.empty());
  EXPECT_FALSE(NoteOf(t).traps[0].match_any);
  EXPECT_DOUBLE_EQ(NoteOf(t).weights.drug, 0.7);
  EXPECT_DOUBLE_EQ(NoteOf(t).weights.mental, 0.0);
  EXPECT_DOUBLE_EQ(NoteOf(t).weights.fabrication, 0.3);
  // default credit: name 0.5, dose 0.25, frequency 0.25
  EXPECT_FALSE(NoteOf(t).credit_overridden);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.name, 0.5);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.dose, 0.25);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.frequency, 0.25);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.route, 0);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.action, 0);
  EXPECT_TRUE(NoteOf(t).critical_errors.empty());
  EXPECT_FALSE(t.sealed);
}

TEST(TrialLoad, FixtureFileLoadsUnchanged) {
  std::ifstream in("tests/fixtures/corpus_extra/01-sore-throat.yaml", std::ios::binary);
  ASSERT_TRUE(in) << "run from the repository root";
  std::stringstream ss;
  ss << in.rdbuf();
  Trial t = ParseTrial(ss.str(), "01-sore-throat.yaml", DefaultRules(), DefaultTerminology());
  EXPECT_EQ(t.id, "01-sore-throat");
  EXPECT_EQ(NoteOf(t).meds.size(), 1u);
}

TEST(TrialLoad, GroundTruthListsAreOptional) {
  Trial t = Parse(With(R"(ground_truth:
  meds:
    - {name: ibuprofen, dose: 400 mg, frequency: three times a day, route: oral, action: continue}
  allergies: []
  mental_flags: []
  deferred_dx: []
  fabrication_traps: [fever]
)", "ground_truth: {}\n"));
  EXPECT_TRUE(NoteOf(t).meds.empty());
  EXPECT_TRUE(NoteOf(t).traps.empty());
  Trial nulls = Parse(With("  allergies: []\n", "  allergies:\n"));
  EXPECT_TRUE(NoteOf(nulls).allergies.empty());
}

TEST(TrialLoad, OptionalMedFieldsMayBeAbsent) {
  Trial t = Parse(WithMed("    - {name: ibuprofen}\n"));
  const ExpectedMed& m = NoteOf(t).meds.at(0);
  EXPECT_FALSE(m.dose);
  EXPECT_FALSE(m.frequency);
  EXPECT_FALSE(m.route);
  EXPECT_FALSE(m.action);
  EXPECT_EQ(m.dose_text, "");
}

TEST(TrialLoad, NamesResolveThroughRxNorm) {
  Trial brand = Parse(WithMed("    - {name: Zoloft}\n"));
  EXPECT_EQ(NoteOf(brand).meds.at(0).keys, (std::vector<std::string>{"36437"}));
  EXPECT_EQ(NoteOf(brand).meds.at(0).drug, "sertraline");
  EXPECT_EQ(NoteOf(brand).meds.at(0).rxcui, "36437");

  Trial syn = Parse(WithMed("    - {name: sertraline, synonyms: [Zoloft, Lustral]}\n"));
  // Zoloft is the same ingredient; Lustral is not in the offline terminology: a name key
  EXPECT_EQ(NoteOf(syn).meds.at(0).keys, (std::vector<std::string>{"36437", "name:lustral"}));
  EXPECT_EQ(NoteOf(syn).meds.at(0).synonyms, (std::vector<std::string>{"Zoloft", "Lustral"}));

  Trial combo = Parse(WithMed("    - {name: Vicodin}\n"));
  EXPECT_EQ(NoteOf(combo).meds.at(0).keys, (std::vector<std::string>{"161+5489"}));
  EXPECT_EQ(NoteOf(combo).meds.at(0).rxcui, "161 / 5489");
}

TEST(TrialLoad, UnknownNameKeepsANameKey) {
  Trial t = Parse(WithMed("    - {name: Zyntrafex XR}\n"));
  EXPECT_EQ(NoteOf(t).meds.at(0).keys, (std::vector<std::string>{"name:zyntrafex xr"}));
  EXPECT_EQ(NoteOf(t).meds.at(0).drug, "zyntrafex xr");
  EXPECT_EQ(NoteOf(t).meds.at(0).rxcui, "");
  EXPECT_FALSE(NoteOf(t).meds.at(0).in_terminology);
}

TEST(TrialLoad, ApproximateNamesAreNotAcceptedInGroundTruth) {
  // a misspelled ground truth must not silently become another drug
  Trial t = Parse(WithMed("    - {name: sertaline}\n"));
  EXPECT_EQ(NoteOf(t).meds.at(0).keys, (std::vector<std::string>{"name:sertaline"}));
  EXPECT_FALSE(NoteOf(t).meds.at(0).in_terminology);
}

TEST(TrialLoad, DoseFrequencyAndActionNormalisers) {
  Trial t = Parse(WithMed("    - {name: levothyroxine, dose: 75 mcg, frequency: q4-6h prn, route: PO, action: hold}\n"));
  const ExpectedMed& m = NoteOf(t).meds.at(0);
  ASSERT_TRUE(m.dose && m.frequency && m.frequency->per_day && m.route && m.action);
  EXPECT_DOUBLE_EQ(m.dose->value, 75);
  EXPECT_EQ(m.dose->unit, "mcg");
  EXPECT_DOUBLE_EQ(*m.frequency->per_day, 6);
  EXPECT_TRUE(m.frequency->prn);
  EXPECT_EQ(*m.route, "oral");
  EXPECT_EQ(*m.action, "stop");      // alias hold -> stop
  EXPECT_EQ(m.action_text, "hold");  // as written

  Trial two = Parse(WithMed("    - {name: ibuprofen, dose: two 200 mg tablets, frequency: weekly}\n"));
  ASSERT_TRUE(NoteOf(two).meds.at(0).dose && NoteOf(two).meds.at(0).frequency && NoteOf(two).meds.at(0).frequency->per_day);
  EXPECT_DOUBLE_EQ(NoteOf(two).meds.at(0).dose->value, 400);
  EXPECT_DOUBLE_EQ(*NoteOf(two).meds.at(0).frequency->per_day, 1.0 / 7.0);
}

// Regression test, bug fixed (rules.cpp TsvRows, see SigTest.FrequenciesStartingWithANumberSlot): the
// frequencies.tsv rows starting with the '#' slot are dropped as comments, so a ground truth
// written "3 times a week" is rejected with "cannot parse frequency".
TEST(TrialLoad, FrequencyWithLeadingNumber) {
  Trial t = Parse(WithMed("    - {name: methotrexate, frequency: 3 times a week}\n"));
  ASSERT_TRUE(NoteOf(t).meds.at(0).frequency && NoteOf(t).meds.at(0).frequency->per_day);
  EXPECT_DOUBLE_EQ(*NoteOf(t).meds.at(0).frequency->per_day, 3.0 / 7.0);
}

TEST(TrialLoad, AllergyForms) {
  Trial t = Parse(With("  allergies: []\n", "  allergies:\n    - penicillin\n    - {substance: latex, reaction: hives}\n"));
  ASSERT_EQ(NoteOf(t).allergies.size(), 2u);
  EXPECT_EQ(NoteOf(t).allergies[0].substance, "penicillin");
  EXPECT_EQ(NoteOf(t).allergies[0].reaction, "");
  EXPECT_EQ(NoteOf(t).allergies[1].substance, "latex");
  EXPECT_EQ(NoteOf(t).allergies[1].reaction, "hives");
}

TEST(TrialLoad, FlagsDeferredAndTraps) {
  Trial t = Parse(With(R"(  mental_flags: []
  deferred_dx: []
  fabrication_traps: [fever]
)", R"(  mental_flags:
    - {flag: passive suicidal ideation, keywords: [SI, wish to be dead]}
  deferred_dx: [bipolar disorder]
  fabrication_traps:
    - chest pain
    - {phrase: syncope, variants: [fainted, passed out]}
    - {phrase: breast exam, match: any}
    - {phrase: rash, match: affirmed}
)"));
  ASSERT_EQ(NoteOf(t).mental_flags.size(), 1u);
  EXPECT_EQ(NoteOf(t).mental_flags[0].flag, "passive suicidal ideation");
  EXPECT_EQ(NoteOf(t).mental_flags[0].keywords, (std::vector<std::string>{"SI", "wish to be dead"}));
  EXPECT_EQ(NoteOf(t).deferred_dx, (std::vector<std::string>{"bipolar disorder"}));
  ASSERT_EQ(NoteOf(t).traps.size(), 4u);
  EXPECT_EQ(NoteOf(t).traps[0].phrase, "chest pain");
  EXPECT_EQ(NoteOf(t).traps[1].variants, (std::vector<std::string>{"fainted", "passed out"}));
  EXPECT_FALSE(NoteOf(t).traps[1].match_any);
  EXPECT_TRUE(NoteOf(t).traps[2].match_any);
  EXPECT_FALSE(NoteOf(t).traps[3].match_any);
}

TEST(TrialLoad, CreditOverride) {
  Trial t = Parse(Append("credit: {name: 0.4, dose: 0.2, frequency: 0.2, route: 0.1, action: 0.1}\n"));
  EXPECT_TRUE(NoteOf(t).credit_overridden);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.name, 0.4);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.route, 0.1);
  EXPECT_DOUBLE_EQ(NoteOf(t).credit.action, 0.1);
  // keys left out of an override are 0, not the defaults
  Trial name_only = Parse(Append("credit: {name: 1}\n"));
  EXPECT_DOUBLE_EQ(NoteOf(name_only).credit.name, 1);
  EXPECT_DOUBLE_EQ(NoteOf(name_only).credit.dose, 0);
  EXPECT_DOUBLE_EQ(NoteOf(name_only).credit.frequency, 0);
}

TEST(TrialLoad, WeightsWithinTolerance) {
  Trial t = Parse(With(kWeights, "weights: {drug: 0.1, mental: 0.2, fabrication: 0.7}\n"));
  EXPECT_DOUBLE_EQ(NoteOf(t).weights.fabrication, 0.7);
  Parse(With(kWeights, "weights: {drug: 0.3333333, mental: 0.3333333, fabrication: 0.3333334}\n"));
  Parse(With(kWeights, "weights: {drug: 1, mental: 0, fabrication: 0}\n"));
  Parse(With(kWeights, "weights: {drug: 5e-1, mental: 0.25, fabrication: 0.25}\n"));
}

TEST(TrialLoad, CriticalErrorRules) {
  Trial t = Parse(Append(R"(critical_errors:
  - id: lisinopril-continued
    description: Lisinopril was stopped for angioedema.
    med: lisinopril
    actions: [continue, start, increase, resume]
  - id: invented-admission
    description: The patient was not admitted.
    asserts: [admitted to the hospital, hospitalized]
)"));
  ASSERT_EQ(NoteOf(t).critical_errors.size(), 2u);
  const CriticalRule& a = NoteOf(t).critical_errors[0];
  EXPECT_EQ(a.id, "lisinopril-continued");
  EXPECT_EQ(a.med, "lisinopril");
  EXPECT_EQ(a.actions, (std::vector<std::string>{"continue", "start", "increase", "start"}));  // canonical
  EXPECT_EQ(a.med_keys, (std::vector<std::string>{"29046"}));
  const CriticalRule& b = NoteOf(t).critical_errors[1];
  EXPECT_EQ(b.asserts, (std::vector<std::string>{"admitted to the hospital", "hospitalized"}));
  EXPECT_TRUE(b.med.empty());
}

TEST(TrialLoad, Sealed) {
  EXPECT_TRUE(Parse(Append("sealed: true\n")).sealed);
  EXPECT_FALSE(Parse(Append("sealed: false\n")).sealed);
  EXPECT_FALSE(Parse(Append("sealed:\n")).sealed);
}

// ---------------------------------------------------------------- unknown keys, every level

TEST(TrialErrors, UnknownTopLevelKey) {
  EXPECT_EQ(Error(With("ground_truth:\n", "ground_turth:\n")),
            "t.yaml: ground_turth: unknown key (allowed here: id, kind, title, difficulty, summary, encounter_text, "
            "instructions, sealed, ground_truth, weights, credit, critical_errors)");
}

TEST(TrialErrors, UnknownKeyIsReportedBeforeMissingKeys) {
  EXPECT_EQ(Error("colour: red\n"),
            "t.yaml: colour: unknown key (allowed here: id, kind, title, difficulty, summary, encounter_text, "
            "instructions, sealed, ground_truth, weights, credit, critical_errors)");
}

TEST(TrialErrors, UnknownGroundTruthKey) {
  EXPECT_EQ(Error(With("  deferred_dx: []\n", "  deferred_dx: []\n  medications: []\n")),
            "t.yaml: ground_truth.medications: unknown key (allowed here: meds, allergies, mental_flags, "
            "deferred_dx, fabrication_traps)");
}

TEST(TrialErrors, UnknownMedKey) {
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, strength: 400 mg}\n")),
            "t.yaml: ground_truth.meds[0].strength: unknown key (allowed here: name, dose, frequency, route, "
            "action, synonyms)");
}

TEST(TrialErrors, UnknownKeyInSecondMed) {
  EXPECT_EQ(Error(WithMed(kMed + "    - {name: sertraline, dosage: 50 mg}\n")),
            "t.yaml: ground_truth.meds[1].dosage: unknown key (allowed here: name, dose, frequency, route, "
            "action, synonyms)");
}

TEST(TrialErrors, UnknownAllergyFlagAndTrapKeys) {
  EXPECT_EQ(Error(With("  allergies: []\n", "  allergies: [{substance: latex, severity: high}]\n")),
            "t.yaml: ground_truth.allergies[0].severity: unknown key (allowed here: substance, reaction)");
  EXPECT_EQ(Error(With("  mental_flags: []\n", "  mental_flags: [{flag: SI, words: [SI]}]\n")),
            "t.yaml: ground_truth.mental_flags[0].words: unknown key (allowed here: flag, keywords, when)");
  EXPECT_EQ(Error(With("  fabrication_traps: [fever]\n", "  fabrication_traps: [fever, {phrase: rash, variant: [x]}]\n")),
            "t.yaml: ground_truth.fabrication_traps[1].variant: unknown key (allowed here: phrase, variants, match, when)");
}

TEST(TrialErrors, UnknownWeightsCreditAndCriticalKeys) {
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.7, mental: 0.0, fabrication: 0.3, safety: 0}\n")),
            "t.yaml: weights.safety: unknown key (allowed here: drug, mental, fabrication)");
  EXPECT_EQ(Error(Append("credit: {name: 0.5, dose: 0.25, freq: 0.25}\n")),
            "t.yaml: credit.freq: unknown key (allowed here: name, dose, frequency, route, action)");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, description: y, asserts: [z], severity: high}\n")),
            "t.yaml: critical_errors[0].severity: unknown key (allowed here: id, description, med, actions, asserts)");
}

// ---------------------------------------------------------------- required keys and shapes

TEST(TrialErrors, MissingRequiredTopLevelKeys) {
  EXPECT_EQ(Error(With("id: 01-sore-throat\n", "")), "t.yaml: id: is required");
  EXPECT_EQ(Error(With("title: Sore throat\n", "")), "t.yaml: title: is required");
  EXPECT_EQ(Error(With("difficulty: easy\n", "")), "t.yaml: difficulty: is required");
  EXPECT_EQ(Error(With("summary: Adult with viral pharyngitis.\n", "")), "t.yaml: summary: is required");
  EXPECT_EQ(Error(With("instructions: Write a SOAP note.\n", "")), "t.yaml: instructions: is required");
  EXPECT_EQ(Error(With(kWeights, "")), "t.yaml: weights: is required");
  EXPECT_EQ(Error(With(R"(encounter_text: |
  Doctor: What brings you in?
  Patient: Sore throat for two days. No fever. I take ibuprofen 400 mg three times a day.
)", "")), "t.yaml: encounter_text: is required");
  EXPECT_EQ(Error(With(R"(ground_truth:
  meds:
    - {name: ibuprofen, dose: 400 mg, frequency: three times a day, route: oral, action: continue}
  allergies: []
  mental_flags: []
  deferred_dx: []
  fabrication_traps: [fever]
)", "")), "t.yaml: ground_truth: is required");
}

TEST(TrialErrors, NullEmptyAndNonTextValues) {
  EXPECT_EQ(Error(With("title: Sore throat\n", "title:\n")), "t.yaml: title: is required");
  EXPECT_EQ(Error(With("title: Sore throat\n", "title: '   '\n")), "t.yaml: title: must not be empty");
  EXPECT_EQ(Error(With("title: Sore throat\n", "title: [Sore, throat]\n")), "t.yaml: title: expected text");
}

TEST(TrialErrors, TopLevelMustBeAMapping) {
  const std::string msg = "t.yaml: (top level): expected a mapping of trial keys (id, title, difficulty, \xE2\x80\xA6)";
  EXPECT_EQ(Error("- a\n- b\n"), msg);
  EXPECT_EQ(Error(""), msg);
  EXPECT_EQ(Error("just text"), msg);
}

TEST(TrialErrors, GroundTruthShapes) {
  const std::string gt = R"(ground_truth:
  meds:
    - {name: ibuprofen, dose: 400 mg, frequency: three times a day, route: oral, action: continue}
  allergies: []
  mental_flags: []
  deferred_dx: []
  fabrication_traps: [fever]
)";
  EXPECT_EQ(Error(With(gt, "ground_truth: [meds]\n")),
            "t.yaml: ground_truth: expected a mapping with meds, allergies, mental_flags, deferred_dx, "
            "fabrication_traps");
  EXPECT_EQ(Error(With(gt, "ground_truth:\n")), "t.yaml: ground_truth: is required");
  EXPECT_EQ(Error(With(gt, "ground_truth: {meds: ibuprofen}\n")), "t.yaml: ground_truth.meds: expected a list");
  EXPECT_EQ(Error(With("  deferred_dx: []\n", "  deferred_dx: bipolar disorder\n")),
            "t.yaml: ground_truth.deferred_dx: expected a list");
  EXPECT_EQ(Error(With("  deferred_dx: []\n", "  deferred_dx: ['']\n")),
            "t.yaml: ground_truth.deferred_dx[0]: must not be empty");
  EXPECT_EQ(Error(With("  deferred_dx: []\n", "  deferred_dx: [[a]]\n")),
            "t.yaml: ground_truth.deferred_dx[0]: expected text");
}

TEST(TrialErrors, MedShapes) {
  EXPECT_EQ(Error(WithMed("    - ibuprofen\n")),
            "t.yaml: ground_truth.meds[0]: expected a mapping with name, dose, frequency, route, action");
  EXPECT_EQ(Error(WithMed("    - {dose: 400 mg}\n")), "t.yaml: ground_truth.meds[0].name: is required");
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, dose: ''}\n")),
            "t.yaml: ground_truth.meds[0].dose: must not be empty when given");
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, synonyms: Advil}\n")),
            "t.yaml: ground_truth.meds[0].synonyms: expected a list");
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, synonyms: [Advil, '']}\n")),
            "t.yaml: ground_truth.meds[0].synonyms[1]: must not be empty");
}

TEST(TrialErrors, AllergyFlagAndTrapShapes) {
  EXPECT_EQ(Error(With("  allergies: []\n", "  allergies: [[penicillin]]\n")),
            "t.yaml: ground_truth.allergies[0]: expected a mapping with substance and reaction");
  EXPECT_EQ(Error(With("  allergies: []\n", "  allergies: [{reaction: rash}]\n")),
            "t.yaml: ground_truth.allergies[0].substance: is required");
  EXPECT_EQ(Error(With("  allergies: []\n", "  allergies: ['  ']\n")),
            "t.yaml: ground_truth.allergies[0]: must not be empty");
  EXPECT_EQ(Error(With("  mental_flags: []\n", "  mental_flags: [insomnia]\n")),
            "t.yaml: ground_truth.mental_flags[0]: expected a mapping with flag and keywords");
  EXPECT_EQ(Error(With("  mental_flags: []\n", "  mental_flags: [{flag: insomnia, keywords: poor sleep}]\n")),
            "t.yaml: ground_truth.mental_flags[0].keywords: expected a list");
  EXPECT_EQ(Error(With("  mental_flags: []\n", "  mental_flags: [{flag: insomnia, keywords: [a, [b]]}]\n")),
            "t.yaml: ground_truth.mental_flags[0].keywords[1]: expected text");
  EXPECT_EQ(Error(With("  fabrication_traps: [fever]\n", "  fabrication_traps: [[fever]]\n")),
            "t.yaml: ground_truth.fabrication_traps[0]: expected a phrase or a mapping with phrase, variants, match");
  EXPECT_EQ(Error(With("  fabrication_traps: [fever]\n", "  fabrication_traps: [{phrase: rash, match: some}]\n")),
            "t.yaml: ground_truth.fabrication_traps[0].match: must be affirmed or any, got \"some\"");
  EXPECT_EQ(Error(With("  fabrication_traps: [fever]\n", "  fabrication_traps: [{variants: [rash]}]\n")),
            "t.yaml: ground_truth.fabrication_traps[0].phrase: is required");
  EXPECT_EQ(Error(With("  fabrication_traps: [fever]\n", "  fabrication_traps: [fever, '']\n")),
            "t.yaml: ground_truth.fabrication_traps[1]: must not be empty");
}

// ---------------------------------------------------------------- id, difficulty

TEST(TrialErrors, IdPattern) {
  for (const char* bad : {"3-sore", "003-sore", "01-Sore", "01_sore", "01-sore-", "01--sore", "01-", "ab-sore",
                          "01-sore throat", "01sore"}) {
    EXPECT_EQ(Error(With("id: 01-sore-throat\n", std::string("id: '") + bad + "'\n")),
              std::string("t.yaml: id: must look like NN-slug (two digits, a hyphen, lower-case words; at most 64 characters), got \"") + bad +
                  "\"")
        << bad;
  }
  for (const char* good : {"99-a", "01-a1-b2", "00-x", "10-adult-adhd-evaluation-anxiety"})
    EXPECT_EQ(Parse(With("id: 01-sore-throat\n", std::string("id: ") + good + "\n")).id, good);
}

TEST(TrialErrors, OversizeIdsAreRefusedWithoutARegex) {
  // 27,000 characters once overflowed std::regex_match's stack and killed the process.
  const std::string huge = "01-" + std::string(27000, 'a');
  EXPECT_EQ(Error(With("id: 01-sore-throat\n", "id: " + huge + "\n")),
            "t.yaml: id: must look like NN-slug (two digits, a hyphen, lower-case words; at most 64 characters), got \"01-" +
                std::string(77, 'a') + "\xE2\x80\xA6\"");
  const std::string longest = "01-" + std::string(61, 'a');
  EXPECT_EQ(Parse(With("id: 01-sore-throat\n", "id: " + longest + "\n")).id, longest);
  EXPECT_EQ(Error(With("id: 01-sore-throat\n", "id: " + longest + "a\n")).substr(0, 30), "t.yaml: id: must look like NN-");
}

TEST(TrialErrors, AliasExpansionIsBounded) {
  // A billion-laughs document: 10 levels of 10 aliases expand to 10^10 values.
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) yaml += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    yaml += "]\n";
  }
  EXPECT_EQ(Error(yaml), "t.yaml: (top level): more than 100000 values once YAML aliases are expanded");
  // Aliases within the bound are ordinary YAML.
  Trial t = Parse(With("  deferred_dx: []\n  fabrication_traps: [fever]\n", "  deferred_dx: &t [fever]\n  fabrication_traps: *t\n"));
  EXPECT_EQ(NoteOf(t).deferred_dx, (std::vector<std::string>{"fever"}));
  ASSERT_EQ(NoteOf(t).traps.size(), 1u);
  EXPECT_EQ(NoteOf(t).traps[0].phrase, "fever");
}

TEST(TrialErrors, DuplicateKeysAreRefused) {
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, dose: 400 mg, dose: 4 mg}\n")),
            "t.yaml: ground_truth.meds[0].dose: duplicate key (each key may appear once)");
  EXPECT_EQ(Error(Append("title: Again\n")), "t.yaml: title: duplicate key (each key may appear once)");
}

TEST(TrialErrors, QuotedNumbersAreText) {
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: '0.7', mental: 0.0, fabrication: 0.3}\n")),
            "t.yaml: weights.drug: expected a number, got the text \"0.7\" (write numbers without quotes)");
  EXPECT_EQ(Error(Append("sealed: 'true'\n")), "t.yaml: sealed: must be true or false");
}

TEST(TrialErrors, Kind) {
  EXPECT_EQ(Parse(Append("kind: note\n")).kind, "note");
  EXPECT_EQ(Parse(kSeed).kind, "note");
  EXPECT_EQ(Error(Append("kind: essay\n")).substr(0, 43), "t.yaml: kind: unknown kind \"essay\" (known k");
  EXPECT_EQ(Error(Append("kind: [note]\n")), "t.yaml: kind: expected text");
}

TEST(TrialErrors, Difficulty) {
  EXPECT_EQ(Error(With("difficulty: easy\n", "difficulty: trivial\n")),
            "t.yaml: difficulty: must be easy, medium or hard, got \"trivial\"");
  EXPECT_EQ(Error(With("difficulty: easy\n", "difficulty: Easy\n")),
            "t.yaml: difficulty: must be easy, medium or hard, got \"Easy\"");
  EXPECT_EQ(Parse(With("difficulty: easy\n", "difficulty: medium\n")).difficulty, "medium");
  EXPECT_EQ(Parse(With("difficulty: easy\n", "difficulty: hard\n")).difficulty, "hard");
}

// ---------------------------------------------------------------- weights and credit

TEST(TrialErrors, WeightsSum) {
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.5, mental: 0.3, fabrication: 0.1}\n")),
            "t.yaml: weights: must sum to 1.0, got 0.9");
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.5, mental: 0.5, fabrication: 0.5}\n")),
            "t.yaml: weights: must sum to 1.0, got 1.5");
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.7, mental: 0.0, fabrication: 0.30001}\n")),
            "t.yaml: weights: must sum to 1.0, got 1.00001");
}

TEST(TrialErrors, WeightValues) {
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 1.5, mental: 0.0, fabrication: 0.3}\n")),
            "t.yaml: weights.drug: must be between 0 and 1, got 1.5");
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.7, mental: -0.1, fabrication: 0.3}\n")),
            "t.yaml: weights.mental: must be between 0 and 1, got -0.1");
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: lots, mental: 0.0, fabrication: 0.3}\n")),
            "t.yaml: weights.drug: expected a number, got \"lots\"");
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.7, mental: 0.0, fabrication: nan}\n")),
            "t.yaml: weights.fabrication: expected a number, got \"nan\"");
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.7, mental: 0.0, fabrication: [0.3]}\n")),
            "t.yaml: weights.fabrication: expected a number");
  EXPECT_EQ(Error(With(kWeights, "weights: {drug: 0.7, mental: 0.3}\n")), "t.yaml: weights.fabrication: is required");
  EXPECT_EQ(Error(With(kWeights, "weights: [0.7, 0.0, 0.3]\n")),
            "t.yaml: weights: expected a mapping {drug, mental, fabrication}");
}

TEST(TrialErrors, CreditSumAndShape) {
  EXPECT_EQ(Error(Append("credit: {name: 0.5, dose: 0.5, frequency: 0.5}\n")), "t.yaml: credit: must sum to 1.0, got 1.5");
  EXPECT_EQ(Error(Append("credit: {name: 0.5}\n")), "t.yaml: credit: must sum to 1.0, got 0.5");
  EXPECT_EQ(Error(Append("credit: {name: 2, dose: -1}\n")), "t.yaml: credit.name: must be between 0 and 1, got 2");
  EXPECT_EQ(Error(Append("credit: 1\n")), "t.yaml: credit: expected a mapping {name, dose, frequency, route, action}");
}

// ---------------------------------------------------------------- dose, frequency, route, action

TEST(TrialErrors, UnparseableDose) {
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, dose: fifty-ish}\n")),
            "t.yaml: ground_truth.meds[0].dose: cannot parse dose \"fifty-ish\" (expected e.g. \"50 mg\", \"two 200 mg "
            "tablets\", \"2 puffs\")");
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, dose: a handful}\n")),
            "t.yaml: ground_truth.meds[0].dose: cannot parse dose \"a handful\" (expected e.g. \"50 mg\", \"two 200 mg "
            "tablets\", \"2 puffs\")");
}

TEST(TrialErrors, UnparseableFrequency) {
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, frequency: whenever}\n")),
            "t.yaml: ground_truth.meds[0].frequency: cannot parse frequency \"whenever\" (expected e.g. \"twice "
            "daily\", \"q8h\", \"q4-6h prn\", \"weekly\")");
}

TEST(TrialErrors, UnknownRoute) {
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, route: by osmosis}\n")),
            "t.yaml: ground_truth.meds[0].route: unknown route \"by osmosis\" (see corpus/rules/routes.tsv)");
}

TEST(TrialErrors, UnknownAction) {
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, action: maybe}\n")),
            "t.yaml: ground_truth.meds[0].action: unknown action \"maybe\" (expected start, continue, stop, increase "
            "or decrease)");
  // note phrases are not ground-truth actions
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, action: started}\n")),
            "t.yaml: ground_truth.meds[0].action: unknown action \"started\" (expected start, continue, stop, "
            "increase or decrease)");
}

TEST(TrialErrors, QuotedValuesAreShortenedAndSanitised) {
  // a double quote inside the value is shown as a single quote
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, route: 'by \"magic\"'}\n")),
            "t.yaml: ground_truth.meds[0].route: unknown route \"by 'magic'\" (see corpus/rules/routes.tsv)");
  // values longer than 80 characters are cut with an ellipsis
  const std::string long_route(90, 'z');
  EXPECT_EQ(Error(WithMed("    - {name: ibuprofen, route: " + long_route + "}\n")),
            "t.yaml: ground_truth.meds[0].route: unknown route \"" + std::string(80, 'z') +
                "\xE2\x80\xA6\" (see corpus/rules/routes.tsv)");
}

// ---------------------------------------------------------------- critical_errors, sealed

TEST(TrialErrors, CriticalErrorShapes) {
  EXPECT_EQ(Error(Append("critical_errors: {id: x}\n")), "t.yaml: critical_errors: expected a list");
  EXPECT_EQ(Error(Append("critical_errors: [x]\n")),
            "t.yaml: critical_errors[0]: expected a mapping with id, description and med/actions or asserts");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {description: y, asserts: [z]}\n")),
            "t.yaml: critical_errors[0].id: is required");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, asserts: [z]}\n")),
            "t.yaml: critical_errors[0].description: is required");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, description: y}\n")),
            "t.yaml: critical_errors[0]: needs either med (with actions) or asserts");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, description: y, med: lisinopril, actions: [start], asserts: [z]}\n")),
            "t.yaml: critical_errors[0]: needs either med (with actions) or asserts");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, description: y, med: lisinopril}\n")),
            "t.yaml: critical_errors[0].actions: is required with med");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, description: y, med: lisinopril, actions: [maybe]}\n")),
            "t.yaml: critical_errors[0].actions: unknown action \"maybe\"");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, description: y, asserts: [a]}\n"
                         "  - {id: x, description: z, asserts: [b]}\n")),
            "t.yaml: critical_errors[1].id: duplicate critical error id \"x\"");
  EXPECT_EQ(Error(Append("critical_errors:\n  - {id: x, description: y, asserts: a}\n")),
            "t.yaml: critical_errors[0].asserts: expected a list");
}

TEST(TrialErrors, Sealed) {
  EXPECT_EQ(Error(Append("sealed: maybe\n")), "t.yaml: sealed: must be true or false");
  EXPECT_EQ(Error(Append("sealed: [true]\n")), "t.yaml: sealed: must be true or false");
}

// ---------------------------------------------------------------- invalid YAML

TEST(TrialErrors, InvalidYamlNamesLineAndColumn) {
  // the same bytes as tests/fixtures/corpus_bad/yaml_syntax/01-sore-throat.yaml
  EXPECT_EQ(Error("id: 01-a\ntitle: x\n  bad: [\n"), "t.yaml: line 3, column 6: invalid YAML: illegal map value");
}

TEST(TrialErrors, FileNameIsUsedInEveryMessage) {
  try {
    ParseTrial(With("difficulty: easy\n", "difficulty: trivial\n"), "03-depression.yaml", DefaultRules(),
               DefaultTerminology());
    FAIL() << "expected a TrialError";
  } catch (const TrialError& e) {
    EXPECT_EQ(std::string(e.what()), "03-depression.yaml: difficulty: must be easy, medium or hard, got \"trivial\"");
  }
}

// ---------------------------------------------------------------- JSON round trip

TEST(TrialJson, GroundTruthJson) {
  Trial t = Parse(With("  fabrication_traps: [fever]\n",
                       "  fabrication_traps: [fever, {phrase: breast exam, match: any}, {phrase: syncope, variants: [fainted]}]\n"));
  nlohmann::json expected = nlohmann::json::parse(R"({
    "meds": [{"name": "ibuprofen", "dose": "400 mg", "frequency": "three times a day", "route": "oral", "action": "continue"}],
    "allergies": [], "mental_flags": [], "deferred_dx": [],
    "fabrication_traps": ["fever", {"phrase": "breast exam", "match": "any"}, {"phrase": "syncope", "variants": ["fainted"]}]
  })");
  EXPECT_EQ(GroundTruthJson(t), expected);
}

TEST(TrialJson, RoundTrip) {
  const std::string yaml = Append(R"(credit: {name: 0.4, dose: 0.2, frequency: 0.2, route: 0.1, action: 0.1}
critical_errors:
  - {id: no-admission, description: Not admitted., asserts: [hospitalized]}
sealed: true
)");
  Trial t = Parse(yaml);
  nlohmann::json j = TrialToJson(t);
  // The definition is the file's own text: rebuilding parses exactly what was loaded.
  EXPECT_EQ(j["format"], 2);
  EXPECT_EQ(j["kind"], "note");
  EXPECT_EQ(j["yaml"], yaml);
  EXPECT_EQ(j["files"], nlohmann::json::object());
  EXPECT_EQ(j["source_file"], "t.yaml");
  EXPECT_EQ(j["version_hash"], t.version_hash);
  EXPECT_EQ(t.version_hash, Sha256Hex(yaml));
  Trial back = TrialFromJson(j, DefaultRules(), DefaultTerminology());
  EXPECT_EQ(back.id, t.id);
  EXPECT_EQ(back.encounter_text, t.encounter_text);
  EXPECT_EQ(back.version_hash, t.version_hash);  // the file's hash, not the JSON's
  EXPECT_EQ(back.source_file, "t.yaml");
  EXPECT_TRUE(back.sealed);
  EXPECT_TRUE(NoteOf(back).credit_overridden);
  EXPECT_DOUBLE_EQ(NoteOf(back).credit.action, 0.1);
  ASSERT_EQ(NoteOf(back).critical_errors.size(), 1u);
  EXPECT_EQ(NoteOf(back).critical_errors[0].asserts, (std::vector<std::string>{"hospitalized"}));
  ASSERT_EQ(NoteOf(back).meds.size(), 1u);
  ASSERT_TRUE(NoteOf(back).meds.at(0).dose);
  EXPECT_DOUBLE_EQ(NoteOf(back).meds.at(0).dose->value, 400);
  EXPECT_EQ(TrialToJson(back), j);
}

TEST(TrialJson, Format1DefinitionsStillRebuild) {
  // What a database written before task kinds stored: the trial's structure as JSON.
  nlohmann::json old = nlohmann::json::parse(R"({
    "id": "01-sore-throat", "title": "Sore throat", "difficulty": "easy", "summary": "Adult with viral pharyngitis.",
    "encounter_text": "Doctor: What brings you in?\nPatient: Sore throat. I take ibuprofen 400 mg three times a day.\n",
    "instructions": "Write a SOAP note.",
    "ground_truth": {"meds": [{"name": "ibuprofen", "dose": "400 mg", "frequency": "three times a day"}],
                     "allergies": [], "mental_flags": [], "deferred_dx": [], "fabrication_traps": ["fever"]},
    "weights": {"drug": 0.7, "mental": 0.0, "fabrication": 0.3}, "critical_errors": [], "sealed": false,
    "source_file": "01-sore-throat.yaml", "version_hash": "abc"})");
  Trial t = TrialFromJson(old, DefaultRules(), DefaultTerminology());
  EXPECT_EQ(t.id, "01-sore-throat");
  EXPECT_EQ(t.kind, "note");
  EXPECT_EQ(t.version_hash, "abc");
  EXPECT_EQ(t.source_file, "01-sore-throat.yaml");
  ASSERT_EQ(NoteOf(t).meds.size(), 1u);
  EXPECT_DOUBLE_EQ(NoteOf(t).meds[0].dose->value, 400);
  EXPECT_DOUBLE_EQ(NoteOf(t).weights.drug, 0.7);
}

// ---------------------------------------------------------------- LoadCorpus

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LoadCorpus, FixtureCorpus) {
  const std::string dir = "tests/fixtures/corpus_extra";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << "run from the repository root";
  Corpus c = LoadCorpus(dir, DefaultRules(), DefaultTerminology());
  ASSERT_EQ(c.trials.size(), 2u);
  EXPECT_EQ(c.trials[0].id, "01-sore-throat");
  EXPECT_EQ(c.trials[1].id, "02-sealed-sore-throat");
  EXPECT_TRUE(c.trials[1].sealed);
  const std::string a = ReadFile(dir + "/01-sore-throat.yaml"), b = ReadFile(dir + "/02-sealed-sore-throat.yaml");
  EXPECT_EQ(c.corpus_hash, Sha256Hex(a + b));  // the sorted files' bytes
  ASSERT_EQ(c.files.size(), 2u);
  EXPECT_EQ(c.files[0], (std::pair<std::string, std::string>{"01-sore-throat.yaml", Sha256Hex(a)}));
  EXPECT_EQ(c.files[1].first, "02-sealed-sore-throat.yaml");
}

std::string CorpusError(const std::string& dir) {
  try {
    LoadCorpus(dir, DefaultRules(), DefaultTerminology());
  } catch (const TrialError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LoadCorpus, Errors) {
  EXPECT_EQ(CorpusError("tests/fixtures/corpus_bad/does-not-exist"),
            "tests/fixtures/corpus_bad/does-not-exist: not a readable directory");
  EXPECT_EQ(CorpusError("tests/fixtures/corpus_bad/empty"),
            "tests/fixtures/corpus_bad/empty: no trial files (*.yaml) found");
  EXPECT_EQ(CorpusError("tests/fixtures/corpus_bad/duplicate"),
            "02-sore-throat-again.yaml: id: duplicate trial id \"01-sore-throat\"");
  EXPECT_EQ(CorpusError("tests/fixtures/corpus_bad/weights"), "01-sore-throat.yaml: weights: must sum to 1.0, got 0.9");
}

TEST(LoadCorpus, OversizeFilesAreRefusedBeforeReading) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scribe-oversize-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "01-big.yaml") << kSeed;
  }
  fs::resize_file(dir / "01-big.yaml", (1u << 20) + 1);  // sparse: nothing is written, nothing need be read
  EXPECT_EQ(CorpusError(dir.string()), "01-big.yaml: larger than 1 MiB");
  fs::resize_file(dir / "01-big.yaml", kSeed.size());
  EXPECT_EQ(LoadCorpus(dir.string(), DefaultRules(), DefaultTerminology()).trials.size(), 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scribe
