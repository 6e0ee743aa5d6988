// Unit tests for claims.h (the unsupported-content detector) and the spelling fold of text.h.
// Expected values follow corpus/rules/claims.yaml, corpus/rules/spelling.tsv and the rules in
// docs/methodology.md ("Unsupported content"), worked out by hand for each text.
#include "claims.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "embedded.h"
#include "extract.h"
#include "rules.h"
#include "text.h"

namespace scribe {
namespace {

std::vector<Claim> Claims(const std::string& note) { return DefaultClaimFinder().Find(AnalyzeText(note)); }

// "class subject | mention | value | assertion" for each claim, for compact exact comparisons.
std::vector<std::string> Rows(const std::string& note) {
  std::vector<std::string> out;
  for (const Claim& c : Claims(note))
    out.push_back(std::string(ClaimClassName(c.cls)) + " " + c.subject + " | " + c.mention + " | " + c.value + " | " +
                  std::string(AssertionName(c.assertion)));
  return out;
}

// "supported|unsupported: reason" for each claim of a note against an encounter.
std::vector<std::string> Checks(const std::string& note, const std::string& encounter) {
  AnalyzedText e = AnalyzeText(encounter);
  SupportIndex index(e, DefaultClaimFinder());
  std::vector<std::string> out;
  for (const Claim& c : Claims(note)) {
    ClaimSupport s = index.Check(c);
    out.push_back(std::string(ClaimClassName(c.cls)) + " " + c.subject + ": " +
                  (s.supported ? "supported" : "unsupported") + ": " + s.reason);
  }
  return out;
}

using Lines = std::vector<std::string>;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Files(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        out.push_back(name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------- spelling fold

TEST(FoldSpelling, BritishToAmerican) {
  const std::vector<std::pair<std::string, std::string>> cases = {{"hospitalised", "hospitalized"},
                                                                  {"hospitalisation", "hospitalization"},
                                                                  {"haemoglobin", "hemoglobin"},
                                                                  {"anaemia", "anemia"},
                                                                  {"leukaemia", "leukemia"},
                                                                  {"oedema", "edema"},
                                                                  {"oesophagus", "esophagus"},
                                                                  {"oestrogen", "estrogen"},
                                                                  {"diarrhoea", "diarrhea"},
                                                                  {"dyspnoea", "dyspnea"},
                                                                  {"apnoea", "apnea"},
                                                                  {"paediatric", "pediatric"},
                                                                  {"orthopaedic", "orthopedic"},
                                                                  {"gynaecology", "gynecology"},
                                                                  {"anaesthetic", "anesthetic"},
                                                                  {"anaesthetised", "anesthetized"},
                                                                  {"tumour", "tumor"},
                                                                  {"tumours", "tumors"},
                                                                  {"behaviour", "behavior"},
                                                                  {"behavioural", "behavioral"},
                                                                  {"colour", "color"},
                                                                  {"counselling", "counseling"},
                                                                  {"counsellor", "counselor"},
                                                                  {"travelled", "traveled"},
                                                                  {"centre", "center"},
                                                                  {"litre", "liter"},
                                                                  {"millilitres", "milliliters"},
                                                                  {"sulphate", "sulfate"},
                                                                  {"sulphonamide", "sulfonamide"},
                                                                  {"analysed", "analyzed"},
                                                                  {"paralysed", "paralyzed"},
                                                                  {"immunisation", "immunization"},
                                                                  {"catheterised", "catheterized"},
                                                                  {"ageing", "aging"},
                                                                  {"judgement", "judgment"},
                                                                  {"grey", "gray"},
                                                                  {"practise", "practice"},
                                                                  {"licence", "license"},
                                                                  {"aetiology", "etiology"},
                                                                  {"faecal", "fecal"},
                                                                  {"coeliac", "celiac"},
                                                                  {"manoeuvre", "maneuver"},
                                                                  {"odour", "odor"},
                                                                  {"fibre", "fiber"}};
  for (const auto& [british, american] : cases) EXPECT_EQ(FoldSpelling(british), american) << british;
}

TEST(FoldSpelling, AmericanWordsAndExceptionsStay) {
  for (const char* w :
       {"hospitalized", "hemoglobin", "tender",      "advise",      "advised",  "revised",    "supervised",
        "exercise",     "exercising", "promise",     "compromised", "surprise", "surprising", "bruise",
        "bruising",     "cruise",     "raise",       "praised",     "noise",    "otherwise",  "likewise",
        "precise",      "expertise",  "advertising", "hour",        "hours",    "four",       "your",
        "contour",      "detours",    "glamour",     "swelling",    "smelling", "spelling",   "compelled",
        "propeller",    "chancellor", "dwelling",    "does",        "shoe",     "aerosol",    "vertebrae"})
    EXPECT_EQ(FoldSpelling(w), w) << w;
  EXPECT_EQ(FoldSpelling("Hospitalised"), "Hospitalised");  // folding works on lower-case norms
  EXPECT_EQ(FoldSpelling("ise"), "ise");
  EXPECT_EQ(FoldSpelling(""), "");
  EXPECT_EQ(FoldSpelling("hôpital"), "hôpital");  // non-ASCII words are left alone
}

TEST(FoldWord, SpellingThenPluralThenPossessive) {
  EXPECT_EQ(FoldWord("tumours"), "tumor");
  EXPECT_EQ(FoldWord("hospitalisations"), "hospitalization");
  EXPECT_EQ(FoldWord("patient's"), "patient");
  EXPECT_EQ(FoldWord("pressure's"), "pressure");
  EXPECT_EQ(FoldWord("palpitations"), "palpitation");
  EXPECT_EQ(FoldWord("it's"), "it's");  // too short to be a possessive of a word
  EXPECT_EQ(FoldedPhrase("Psychiatric Hospitalisation"), "psychiatric hospitalization");
}

TEST(FoldWord, TokensCarryTheFold) {
  TokenList toks = Tokenize("Hospitalised for oedema");
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[0].norm, "hospitalised");
  EXPECT_EQ(toks[0].folded, "hospitalized");
  EXPECT_EQ(toks[0].folded_hash, HashWord("hospitalized"));
  EXPECT_EQ(toks[2].folded, "edema");
  EXPECT_EQ(toks[2].raw(), "oedema");  // the text is never changed
}

TEST(PhraseMatcherSpelling, EitherSpellingMatchesTheOther) {
  PhraseMatcher m(true);
  m.Add("hospitalized", 0);
  m.Add("haemoglobin", 1);
  m.Add("psychiatric hospitalization", 2);
  auto ids = [&](const std::string& text) {
    std::vector<int> out;
    TokenList toks = Tokenize(text);
    for (const PatternMatch& p : m.FindAll(toks, 0, toks.size())) out.push_back(p.id);
    return out;
  };
  EXPECT_EQ(ids("She was hospitalised in 2019."), std::vector<int>({0}));
  EXPECT_EQ(ids("Hemoglobin 8.2"), std::vector<int>({1}));
  EXPECT_EQ(ids("haemoglobin 8.2"), std::vector<int>({1}));
  EXPECT_EQ(ids("No prior psychiatric hospitalisations."), std::vector<int>({2}));
  PhraseMatcher exact(false);  // without folding, spellings stay apart
  exact.Add("hospitalized", 0);
  TokenList toks = Tokenize("hospitalised");
  EXPECT_TRUE(exact.FindAll(toks, 0, toks.size()).empty());
}

TEST(SpellingTable, EveryRowIsWellFormed) {
  // every data row folds its British word to its American word
  std::string_view tsv = embedded_file("corpus/rules/spelling.tsv");
  ASSERT_FALSE(tsv.empty());
  int pairs = 0;
  for (std::string_view line : Split(tsv, '\n')) {
    if (line.empty() || line.front() == '#' || line.front() == '@') continue;
    std::vector<std::string_view> f = Split(line, '\t');
    ASSERT_EQ(f.size(), 2u) << line;
    EXPECT_EQ(FoldSpelling(f[0]), f[1]) << line;
    EXPECT_EQ(FoldSpelling(f[1]), f[1]) << line;  // an American spelling is a fixed point
    ++pairs;
  }
  EXPECT_GT(pairs, 50);
}

// ---------------------------------------------------------------- completed actions

TEST(CompletedActions, BothSpellingsAreListedAndMatch) {
  const CompletedActions& a = DefaultCompletedActions();
  auto listed = [](const std::vector<std::string>& list, const char* w) {
    return std::find(list.begin(), list.end(), w) != list.end();
  };
  EXPECT_TRUE(listed(a.admission, "hospitalised"));
  EXPECT_TRUE(listed(a.admission, "hospitalized"));
  EXPECT_TRUE(listed(a.admission, "admitted"));
  EXPECT_TRUE(listed(a.prescription, "prescribed"));
  EXPECT_TRUE(listed(a.prescription, "sent to the pharmacy"));
  EXPECT_TRUE(listed(a.prescription, "started"));
  EXPECT_TRUE(listed(a.lethal_means, "removed the firearms"));
  EXPECT_TRUE(listed(a.procedure, "immunised"));
  EXPECT_TRUE(listed(a.procedure, "immunized"));
  auto first = [](const PhraseMatcher& m, const std::vector<std::string>& list, const std::string& text) {
    TokenList toks = Tokenize(text);
    auto hits = m.FindAll(toks, 0, toks.size());
    return hits.empty() ? std::string("none") : list[hits.front().id];
  };
  EXPECT_EQ(first(a.admission_matcher, a.admission, "She was hospitalised overnight."), "was hospitalized");
  EXPECT_EQ(first(a.prescription_matcher, a.prescription, "Losartan 50 mg sent to the pharmacy."),
            "sent to the pharmacy");
  EXPECT_EQ(first(a.prescription_matcher, a.prescription, "Losartan e-prescribed."), "e-prescribed");
  EXPECT_EQ(first(a.lethal_means_matcher, a.lethal_means, "Her husband removed the firearms from the home."),
            "removed the firearms");
  EXPECT_EQ(first(a.lethal_means_matcher, a.lethal_means, "No firearms in the home."), "none");
}

TEST(CompletedActions, MissingListIsAnError) {
  try {
    LoadCompletedActions("prescription: [started]\nadmission: [admitted]\nprocedure: [done]\n");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "completed_actions.yaml: missing list 'lethal_means'");
  }
}

// ---------------------------------------------------------------- finding claims

TEST(ClaimFinder, IssueExampleVitalsAndExam) {
  EXPECT_EQ(Rows("Vitals: BP 132/78, HR 72, SpO2 97%. Abdomen soft, non-tender. Neuro: no focal deficits."),
            Lines({"vital blood pressure | BP 132/78 | 132/78 | affirmed", "vital heart rate | HR 72 | 72 | affirmed",
                   "vital oxygen saturation | SpO2 97% | 97% | affirmed",
                   "exam abdomen | Abdomen soft, non-tender | soft, non-tender | affirmed",
                   "exam neurological | Neuro: no focal deficits | no focal deficits | negated"}));
}

TEST(ClaimFinder, OffsetsAndNumbers) {
  std::vector<Claim> c = Claims("Über: BP 132 over 78 mmHg.");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].char_begin, 6u);  // code points: "Ü" is one
  EXPECT_EQ(c[0].char_end, 25u);
  EXPECT_EQ(c[0].mention, "BP 132 over 78 mmHg");
  EXPECT_EQ(c[0].numbers, std::vector<double>({132, 78}));
}

TEST(ClaimFinder, IssueExampleReferralAndTest) {
  EXPECT_EQ(Rows("Referred to cardiology; echocardiogram ordered."),
            Lines({"referral cardiology | Referred to cardiology |  | affirmed",
                   "test echocardiogram | echocardiogram |  | affirmed"}));
}

TEST(ClaimFinder, AdmissionsInEitherSpelling) {
  EXPECT_EQ(Rows("Admitted to the psychiatric unit. She was hospitalised last year."),
            Lines({"admission psychiatric | Admitted to the psychiatric unit |  | affirmed",
                   "admission hospital | hospitalised |  | affirmed"}));
  // a denial claims nothing; "admitted to drinking" has no setting
  EXPECT_EQ(Rows("No prior psychiatric hospitalization. He admitted to drinking six beers."), Lines({}));
}

TEST(ClaimFinder, HypotheticalAndFamilyClaimNothing) {
  EXPECT_EQ(Rows("Return if chest pain. Consider MRI if no improvement. Mother had a mastectomy."), Lines({}));
  EXPECT_EQ(Rows("If symptoms worsen, will refer to neurology."), Lines({}));
}

TEST(ClaimFinder, NegatedExamStillClaimsNegatedTestDoesNot) {
  EXPECT_EQ(Rows("Exam: no masses. No imaging indicated. X-ray negative."),
            Lines({"exam unspecified | no masses | no masses | negated", "test x-ray | X-ray |  | negated"}));
  // outside an exam section a bare "no masses" is no claim: it names no body part
  EXPECT_EQ(Rows("No masses."), Lines({}));
  EXPECT_EQ(Rows("No new imaging was obtained today."), Lines({}));
}

TEST(ClaimFinder, HistorySectionsHoldSymptomsNotExams) {
  // "knuckle swelling" and "prn wheeze" are symptoms in history sections; the exam below is a claim
  EXPECT_EQ(Rows("HPI: morning stiffness and knuckle swelling.\nMeds: albuterol 2 puffs prn wheeze.\n"
                 "Exam: mild expiratory wheeze. Denies rash."),
            Lines({"exam respiratory | expiratory wheeze | expiratory wheeze | affirmed"}));
}

TEST(ClaimFinder, AnalytesAreTestsOnlyAsMeasurements) {
  EXPECT_EQ(Rows("Limit sodium intake. Potassium chloride 20 mEq daily."), Lines({}));
  EXPECT_EQ(Rows("Potassium 4.1. Check sodium."),
            Lines({"test potassium | Potassium 4.1 | 4.1 | affirmed", "test sodium | sodium |  | affirmed"}));
}

TEST(ClaimFinder, ProceduresLethalMeansAndReferralCues) {
  EXPECT_EQ(
      Rows("s/p appendectomy. Right knee joint injection performed. Firearms removed from the home by her brother."),
      Lines({"procedure appendectomy | appendectomy |  | historical",
             "procedure joint injection | joint injection |  | affirmed",
             "lethal_means lethal means | Firearms removed |  | affirmed"}));
  // a specialty without a referral cue is no referral; a post-cue counts
  EXPECT_EQ(Rows("She sees cardiology. PT referral placed."),
            Lines({"referral physical therapy | PT referral placed |  | affirmed"}));
}

// ---------------------------------------------------------------- checking support

const char* kEncounterNoExam =
    "Doctor: What brings you in?\n"
    "Patient: My knee has been bothering me.\n"
    "Doctor: Any chest pain?\n"
    "Patient: No.\n";

TEST(SupportIndex, IssueExampleIsUnsupportedWithReasons) {
  EXPECT_EQ(Checks("Vitals: BP 132/78, HR 72, SpO2 97%. Abdomen soft, non-tender. Neuro: no focal deficits.",
                   kEncounterNoExam),
            Lines({"vital blood pressure: unsupported: the encounter gives no blood pressure",
                   "vital heart rate: unsupported: the encounter gives no heart rate",
                   "vital oxygen saturation: unsupported: the encounter gives no oxygen saturation",
                   "exam abdomen: unsupported: the encounter has no abdomen examination or finding",
                   "exam neurological: unsupported: the encounter has no neurological examination or finding"}));
  EXPECT_EQ(
      Checks("Referred to cardiology; echocardiogram ordered.", kEncounterNoExam),
      Lines({"referral cardiology: unsupported: the encounter never mentions cardiology",
             "test echocardiogram: unsupported: the encounter never mentions echocardiogram or what it measures"}));
}

TEST(SupportIndex, ValuesSpokenAndConverted) {
  const char* enc =
      "Doctor: Your blood pressure today is one thirty-eight over eighty-six.\n"
      "Doctor: You weigh 80 kilograms and your temperature is 37 degrees.\n"
      "Doctor: Your TSH came back at 7.8.\n";
  EXPECT_EQ(Checks("BP 138/86. Weight 176 lb. Temp 98.6 F. TSH 7.8. BP 132/78.", enc),
            Lines({"vital blood pressure: supported: the encounter gives blood pressure 138/86",
                   "vital weight: supported: the encounter gives weight 176 lb",
                   "vital temperature: supported: the encounter gives temperature 98.6 F",
                   "test TSH: supported: the encounter gives TSH 7.8",
                   "vital blood pressure: unsupported: the encounter gives no blood pressure of 132/78"}));
}

TEST(SupportIndex, TestsAreSupportedByWhatTheyMeasure) {
  const char* enc = "Doctor: I'd like a blood test in two weeks to check your potassium and kidney function.\n";
  EXPECT_EQ(Checks("BMP in 2 weeks. CBC in 2 weeks.", enc),
            Lines({"test BMP: supported: the encounter mentions potassium, which BMP measures",
                   "test CBC: unsupported: the encounter never mentions CBC or what it measures"}));
}

TEST(SupportIndex, ExamSupportBySystemCueAndRelatedSystem) {
  const char* enc =
      "Doctor: Let me listen to your lungs.\n"
      "Doctor: Your strength is normal in both legs.\n";
  EXPECT_EQ(Checks("Lungs clear bilaterally. Lower extremity strength 5/5. Abdomen soft.", enc),
            Lines({"exam respiratory: supported: the encounter has a respiratory examination or finding",
                   "exam extremities: supported: the encounter has a neurological examination or finding "
                   "(related to extremities)",
                   "exam neurological: supported: the encounter has a neurological examination or finding",
                   "exam abdomen: unsupported: the encounter has no abdomen examination or finding"}));
}

TEST(SupportIndex, ADeniedQuestionIsNoSupport) {
  const char* enc =
      "Doctor: Have you ever been admitted to a psychiatric hospital?\n"
      "Patient: No, never.\n"
      "Doctor: Have you seen a cardiologist?\n"
      "Patient: Yes, last year.\n";
  EXPECT_EQ(Checks("Admitted to the psychiatric unit in 2019. Referred to cardiology.", enc),
            Lines({"admission psychiatric: unsupported: the encounter documents no psychiatric admission "
                   "(the encounter only denies it)",
                   "referral cardiology: supported: the encounter mentions cardiology"}));
}

TEST(SupportIndex, ProcedureByOrganAndEvidenceOffsets) {
  std::string enc = "Doctor: Any surgeries?\nPatient: I had my appendix taken out when I was 18.\n";
  AnalyzedText e = AnalyzeText(enc);
  SupportIndex index(e, DefaultClaimFinder());
  std::vector<Claim> c = Claims("PSH: appendectomy.");
  ASSERT_EQ(c.size(), 1u);
  ClaimSupport s = index.Check(c[0]);
  EXPECT_TRUE(s.supported);
  EXPECT_EQ(s.reason, "the encounter mentions appendix taken out");
  EXPECT_EQ(s.evidence, "Patient: I had my appendix taken out when I was 18.");
  EXPECT_EQ(s.evidence_begin, 23u);
  EXPECT_EQ(s.evidence_end, 74u);
}

// ---------------------------------------------------------------- faithful notes lose nothing

std::string Encounter(const std::string& trial) {
  return YAML::LoadFile("corpus/scripts/" + trial + ".yaml")["encounter_text"].as<std::string>();
}

std::vector<std::string> Unsupported(const std::string& note, const std::string& encounter) {
  AnalyzedText e = AnalyzeText(encounter);
  SupportIndex index(e, DefaultClaimFinder());
  std::vector<std::string> out;
  for (const Claim& c : Claims(note))
    if (ClaimSupport s = index.Check(c); !s.supported) out.push_back(c.mention + ": " + s.reason);
  return out;
}

// The trials whose input is an encounter text (kinds note and rubric; the FHIR kinds read a bundle
// or a write case and are answered in JSON).
std::vector<std::string> TextTrials() {
  std::vector<std::string> out;
  for (const std::string& f : Files("corpus/scripts", ".yaml"))
    if (YAML::LoadFile("corpus/scripts/" + f)["encounter_text"]) out.push_back(f);
  return out;
}

TEST(FaithfulNotes, EveryReferenceNoteIsFullySupported) {
  std::vector<std::string> trials = TextTrials();
  ASSERT_EQ(trials.size(), 13u);
  size_t claims = 0;
  for (std::string t : trials) {
    t = t.substr(0, t.size() - 5);
    std::string note = ReadFile("tests/fixtures/notes/" + t + "/reference.txt");
    claims += Claims(note).size();
    EXPECT_EQ(Unsupported(note, Encounter(t)), Lines({})) << t;
  }
  EXPECT_GE(claims, 40u);  // the notes do make checkable claims (vitals, exams, labs, referrals)
}

TEST(FaithfulNotes, ParaphrasesAreFullySupported) {
  int notes = 0;
  for (std::string t : TextTrials()) {
    t = t.substr(0, t.size() - 5);
    for (const std::string& f : Files("tests/fixtures/claims/" + t, ".txt")) {
      EXPECT_EQ(Unsupported(ReadFile("tests/fixtures/claims/" + t + "/" + f), Encounter(t)), Lines({}))
          << t << "/" << f;
      ++notes;
    }
  }
  EXPECT_EQ(notes, 8);
}

// ---------------------------------------------------------------- loading

std::string LoadError(const std::string& yaml) {
  try {
    LoadClaimRules(yaml);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(LoadClaimRules, ErrorsNameTheKey) {
  std::string good(embedded_file("corpus/rules/claims.yaml"));
  EXPECT_EQ(LoadError(good), "no error");
  EXPECT_EQ(LoadError("severity_points: {minor: 3}\n"), "claims.yaml: top level: missing 'classes'");
  std::string bad_severity = good;
  bad_severity.replace(bad_severity.find("vital: {severity: minor"), 23, "vital: {severity: tiny");
  EXPECT_EQ(LoadError(bad_severity), "claims.yaml: classes.vital: unknown severity 'tiny'");
  std::string bad_system = good;
  bad_system.replace(bad_system.find("- [extremities, musculoskeletal]"), 32, "- [extremities, elbows]");
  EXPECT_EQ(LoadError(bad_system), "claims.yaml: exam.related: unknown system 'elbows'");
}

TEST(ClaimFinder, SeveritiesAreSeedDeductions) {
  const ClaimFinder& f = DefaultClaimFinder();
  EXPECT_EQ(f.SeverityOf(ClaimClass::kVital).name, "minor");
  EXPECT_EQ(f.SeverityOf(ClaimClass::kVital).points, 3);
  EXPECT_EQ(f.SeverityOf(ClaimClass::kTest).points, 8);
  EXPECT_EQ(f.SeverityOf(ClaimClass::kAdmission).name, "critical");
  EXPECT_EQ(f.SeverityOf(ClaimClass::kAdmission).points, 15);
  EXPECT_EQ(f.SeverityOf(ClaimClass::kLethalMeans).points, 15);
}

}  // namespace
}  // namespace scribe
