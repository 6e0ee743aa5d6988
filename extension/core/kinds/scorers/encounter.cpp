// encounter.cpp — see encounter.h.
#include "encounter.h"

namespace scribe {

PreparedEncounter::PreparedEncounter(std::string_view text, const Environment& env)
    : analyzed(AnalyzeText(text, env.rules, env.terminology, env.assertion)) {
  for (const DrugMention& m : analyzed.drugs) drug_keys.insert(m.key);
  for (const Token& t : analyzed.text.tokens)
    if (t.kind == TokenKind::kWord) words.emplace(t.norm);
}

}  // namespace scribe
