// claims.h — unsupported content without a pre-written trap: the claims a note makes that an
// encounter can confirm or not (docs/methodology.md, "Unsupported content").
//
//   const ClaimFinder& finder = DefaultClaimFinder();
//   SupportIndex index(AnalyzeText(encounter_text), finder);   // once per trial
//   for (const Claim& c : finder.Find(AnalyzeText(note_text)))  // per note, linear in its length
//     if (ClaimSupport s = index.Check(c); !s.supported)
//       report(c.cls, c.subject, c.mention, s.reason, finder.SeverityOf(c.cls));
//
// Claim classes are the ones audits found scribes inventing: vital signs and measurements with a
// value, physical-exam findings by body system, tests/imaging/labs ordered or resulted,
// referrals, admissions, procedures and lethal-means actions. What counts as a claim and what
// supports it is data (corpus/rules/claims.yaml): a claim is supported when the encounter names
// the same class and subject — the same vital with the same value (spoken numbers and unit
// conversions included), an exam of the same or a related body system, the test or something it
// measures ("BMP" ← "check your potassium and kidney function"), the specialty, the kind of
// admission, the procedure or its organ. A negated exam finding ("no masses") still claims an
// exam; a hypothetical ("return if chest pain") or family mention claims nothing; what a question
// in the encounter names does not support a claim when the answer denies it.
//
// Also here: the completed-action phrases of corpus/rules/completed_actions.yaml, for grading.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "assertion.h"
#include "extract.h"
#include "rules.h"

namespace scribe {

enum class ClaimClass : uint8_t { kVital, kExam, kTest, kReferral, kProcedure, kAdmission, kLethalMeans };
inline constexpr size_t kClaimClassCount = 7;

// "vital", "exam", "test", "referral", "procedure", "admission", "lethal_means".
std::string_view ClaimClassName(ClaimClass c);

struct Severity {
  std::string name;  // minor, major, critical
  int points = 0;    // seed 001's deduction: 3, 8, 15
};

struct Claim {
  ClaimClass cls = ClaimClass::kVital;
  std::string subject;          // vital, body system, test, specialty, kind of admission, procedure ("blood pressure",
                                // "abdomen", "BMP")
  std::string mention;          // the text as written
  std::string value;            // the value or findings ("132/78", "soft, non-tender"); empty when none
  std::vector<double> numbers;  // the numbers of the value (132, 78)
  size_t tok_begin = 0, tok_end = 0;
  uint32_t char_begin = 0, char_end = 0;       // code points, 0-based, end exclusive
  Assertion assertion = Assertion::kAffirmed;  // negated only for exam findings and test results
};

struct ClaimSupport {
  bool supported = false;
  std::string reason;    // why: what supports it, or what the encounter lacks or says instead
  std::string evidence;  // the encounter text that supports (or contradicts) it; empty when none
  uint32_t evidence_begin = 0, evidence_end = 0;  // its code-point offsets in the encounter
};

// claims.yaml parsed into matchers. Built once; read-only afterwards (thread-safe).
struct ClaimRules {
  struct Subject {
    std::string key;
    bool generic = false;       // "labs", "imaging", "vital signs", "specialist", "surgery"
    std::string kind;           // tests: lab, imaging, other
    std::string convert;        // vitals: weight, temperature
    bool analyte = false;       // tests named like a drug ("potassium"): not a test when dosed
    std::vector<int> measures;  // tests: measure ids (its own key included)
  };
  enum class Section : uint8_t { kNone, kHistory, kExam, kOther };

  std::array<Severity, kClaimClassCount> severity;
  std::array<std::string, kClaimClassCount> label;
  PhraseMatcher clause_breaks{true}, history_verbs{true}, denial_answers{true}, value_links{true}, value_units{true},
      time_units{true}, result_words{true}, vital_descriptors{true}, analyte_after{true}, analyte_before{true},
      no_test_cues{true};
  std::unordered_map<std::string, Section> sections;  // folded heading phrase -> section
  StringMap<double> number_words;

  std::vector<Subject> vitals;
  PhraseMatcher vital_names{true};    // id: vitals index
  PhraseMatcher vital_support{true};  // id: vitals index; encounter only ("satting", "no fever")

  std::vector<std::string> systems;        // exam subjects
  std::vector<std::vector<bool>> related;  // systems x systems
  PhraseMatcher exam_targets{true};        // id: system index
  PhraseMatcher exam_findings{true};       // id: FindingId()
  PhraseMatcher exam_cues{true}, encounter_exam_cues{true}, location_words{true};
  // Post-negation triggers of assertion.yaml ("x-ray negative"): how near a negation must be in a
  // transcript. Filled by DefaultClaimFinder from DefaultRules().
  PhraseMatcher negation_post{false};

  std::vector<Subject> tests;
  PhraseMatcher test_names{true};       // id: tests index; -1: an exclusion ("valgus stress test")
  std::vector<std::string> measures;    // measure keys
  PhraseMatcher measure_phrases{true};  // id: measure index

  PhraseMatcher referral_cues{true}, referral_post_cues{true};
  std::vector<Subject> specialties;
  PhraseMatcher specialty_names{true};  // id: specialties index

  PhraseMatcher admission_words{true}, admission_needs_setting{true}, admission_settings{true};
  std::vector<std::string> admission_subjects;  // last one is the default
  PhraseMatcher admission_subject_words{true};  // id: admission_subjects index

  std::vector<Subject> procedures;
  PhraseMatcher procedure_names{true};                  // id: procedures index
  PhraseMatcher procedure_support{true};                // id: index into procedure_support_ids
  std::vector<std::vector<int>> procedure_support_ids;  // a support phrase -> the procedures it supports
  std::vector<std::string> procedure_suffixes;
  std::array<bool, 256> procedure_suffix_ends{};  // the suffixes' last bytes: a word ending in another has none
  std::vector<std::string> procedure_roots;          // word roots ("cholecyst")
  PhraseMatcher procedure_root_words{true};          // id: index into procedure_root_ids ("gallbladder")
  std::vector<std::vector<int>> procedure_root_ids;  // a root word -> the roots it names

  PhraseMatcher lethal_means{true}, lethal_actions{true};

  // Lookups by key, filled by LoadClaimRules.
  std::unordered_map<std::string, int> vital_by_key, system_by_key, test_by_key, measure_by_key, specialty_by_key,
      procedure_by_key;

  // Exam finding ids: strong or weak, and the system it implies (-1: none).
  static int FindingId(int system, bool strong) { return (system + 1) * 2 + (strong ? 1 : 0); }
  static bool FindingStrong(int id) { return (id & 1) != 0; }
  static int FindingSystem(int id) { return (id >> 1) - 1; }
};

// Parses claims.yaml; throws std::runtime_error naming the key on malformed data.
ClaimRules LoadClaimRules(std::string_view claims_yaml);

// Finds the claims of a text. Stateless; one instance serves every thread.
class ClaimFinder {
 public:
  explicit ClaimFinder(ClaimRules rules);
  ClaimFinder(const ClaimFinder&) = delete;
  ClaimFinder& operator=(const ClaimFinder&) = delete;

  // Every claim of an analysed note, in text order.
  std::vector<Claim> Find(const AnalyzedText& note) const;
  const Severity& SeverityOf(ClaimClass c) const { return rules_.severity[static_cast<size_t>(c)]; }
  const std::string& LabelOf(ClaimClass c) const { return rules_.label[static_cast<size_t>(c)]; }
  const ClaimRules& rules() const { return rules_; }
  // The matchers a text is swept with, clause breaks and every pass's: where they may start.
  const MatcherStarts& starts() const { return starts_; }

 private:
  ClaimRules rules_;
  MatcherStarts starts_;
};

// The finder for corpus/rules/claims.yaml (thread-safe).
const ClaimFinder& DefaultClaimFinder();

// What an encounter says, indexed once for checking the claims of many notes.
class SupportIndex {
 public:
  SupportIndex(const AnalyzedText& encounter, const ClaimFinder& finder);
  SupportIndex(const SupportIndex&) = delete;  // by_class_ points into mentions_
  SupportIndex& operator=(const SupportIndex&) = delete;
  SupportIndex(SupportIndex&&) = default;
  // Whether the encounter supports a claim, and why. Cost: the encounter mentions of the claim's class.
  ClaimSupport Check(const Claim& claim) const;

  // One thing the encounter names: a subject of a class, where, and how it is said.
  struct Mention {
    ClaimClass cls = ClaimClass::kVital;
    std::string subject;      // as in Claim; "root:<root>" for a procedure's organ word
    bool is_measure = false;  // tests: a measure phrase ("kidney function"), subject = its key
    size_t tok_begin = 0, tok_end = 0;
    Assertion assertion = Assertion::kAffirmed;
    bool denied = false;                                      // in a question the answer denies
    std::vector<double> numbers;                              // numbers said near it (same and next sentence)
    uint32_t sentence_begin = 0, sentence_end = 0;            // bytes of its sentence
    uint32_t sentence_char_begin = 0, sentence_char_end = 0;  // code points of its sentence
  };
  const std::vector<Mention>& mentions() const { return mentions_; }

 private:
  ClaimSupport Evidence(const Mention& m, bool supported, std::string reason) const;
  std::string Slice(size_t tok_begin, size_t tok_end) const;  // encounter text of tokens

  const ClaimFinder& finder_;
  std::string text_;                             // the encounter, owned (evidence is cut from it)
  std::vector<uint32_t> byte_begin_, byte_end_;  // per encounter token
  std::vector<Mention> mentions_;
  std::array<std::vector<const Mention*>, kClaimClassCount> by_class_;
};

// Completed actions (corpus/rules/completed_actions.yaml): phrases that document something as
// done, British and American spellings, compiled for phrase matching with folding.
struct CompletedActions {
  std::vector<std::string> prescription, admission, procedure, lethal_means;
  PhraseMatcher prescription_matcher{true}, admission_matcher{true}, procedure_matcher{true},
      lethal_means_matcher{true};
};
CompletedActions LoadCompletedActions(std::string_view yaml);
const CompletedActions& DefaultCompletedActions();

}  // namespace scribe
