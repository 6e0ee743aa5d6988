// claims_check.h — unsupported content without a trap (docs/methodology.md §4), for every kind
// that grades text against an encounter.
//
// The claims of a note (vitals, exam findings, tests, referrals, procedures, admissions,
// lethal-means actions: corpus/rules/claims.yaml) are looked up in the trial's encounter, indexed
// once per trial. A claim the encounter does not support is an unsupported addition with the
// severity of its class; an unsupported admission or lethal-means removal is seed 001's critical
// invented completed action.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "claims.h"
#include "evidence.h"

namespace scribe {

struct UnsupportedClaim {
  Claim claim;
  ClaimSupport support;
  Severity severity;
  Evidence evidence;  // the note's words
};

class ClaimCheck {
 public:
  explicit ClaimCheck(const AnalyzedText& encounter);
  // Every unsupported claim, once per class and subject (a repeated claim is one addition), in
  // note order. Claims inside `exempt` spans (code points; content a trap or rule already judged)
  // are left to that judgement. Psychiatric exam findings (a mental status, observed, never said)
  // are not judged.
  std::vector<UnsupportedClaim> Find(const AnalyzedText& note,
                                     const std::vector<std::pair<uint32_t, uint32_t>>& exempt = {}) const;

 private:
  SupportIndex index_;
};

// Critical errors for the critical-severity claims (kind invented_action), unless a trial rule
// already reported the same words.
void AddInventedActions(const std::vector<UnsupportedClaim>& claims, std::vector<CriticalError>& errors);

// {"class", "encounter" (when the encounter says something), "evidence", "key", "reason",
// "severity", "subject", "value" (when the claim has one)}
void WriteUnsupportedClaim(JsonWriter& w, const UnsupportedClaim& c);

// The code points of the sentence holding token `tok`: what a fired trap or deduction judged
// ("Vital signs: BP 118/76, HR 82." under a vital-signs deduction is one invention).
std::pair<uint32_t, uint32_t> SentenceSpan(const AnalyzedText& note, size_t tok);
// The same for the token that starts at code point `char_offset` (an evidence span's start).
std::pair<uint32_t, uint32_t> SentenceSpanAt(const AnalyzedText& note, uint32_t char_offset);

}  // namespace scribe
