// evidence.cpp — spans, critical errors and mention JSON (see evidence.h).
#include "evidence.h"

namespace scribe {

std::string Slice(const TokenizedText& t, size_t begin, size_t end) {
  if (begin >= end || end > t.tokens.size()) return {};
  return std::string(t.text.substr(t.tokens[begin].byte_begin, t.tokens[end - 1].byte_end - t.tokens[begin].byte_begin));
}

std::string SentenceOf(const AnalyzedText& a, size_t token) {
  uint32_t s = a.text.sentence_of[token];
  std::string text = Slice(a.text, a.text.sentence_begin[s], a.text.sentence_end[s]);
  if (text.size() > 160) text = text.substr(0, 157) + "...";
  return text;
}

Evidence MakeEvidence(const AnalyzedText& a, size_t begin, size_t end) {
  return {Slice(a.text, begin, end), a.text.tokens[begin].char_begin, a.text.tokens[end - 1].char_end,
          AssertionAnalyzer::Resolve(a.assertion_bits, begin, end), {}};
}

void WriteEvidence(JsonWriter& w, const Evidence& e, std::string_view flag, bool value) {
  const bool flag_first = !flag.empty() && flag < "assertion";
  w.BeginObject();
  if (flag_first) {
    w.Key(flag);
    w.Bool(value);
  }
  w.Key("assertion");
  w.String(AssertionName(e.assertion));
  if (!e.context.empty()) {
    w.Key("context");
    w.String(e.context);
  }
  w.Key("end_offset");
  w.Uint(e.end_offset);
  w.Key("start_offset");
  w.Uint(e.start_offset);
  w.Key("text");
  w.String(e.text);
  if (!flag.empty() && !flag_first) {
    w.Key(flag);
    w.Bool(value);
  }
  w.EndObject();
}

void WriteEvidenceMembers(JsonWriter& w, const EvidenceList& list) {
  w.Key("evidence");
  w.BeginArray();
  for (const Evidence& e : list.shown) WriteEvidence(w, e);
  w.EndArray();
  if (list.more) {
    w.Key("evidence_more");
    w.Uint(list.more);
  }
}

void WriteCriticalError(JsonWriter& w, const CriticalError& c) {
  w.BeginObject();
  w.Key("evidence");
  if (c.evidence) WriteEvidence(w, *c.evidence);
  else w.Null();
  if (!c.id.empty()) {
    w.Key("id");
    w.String(c.id);
  }
  // key: how a reviewer names this error (scribe_review): the kind and the trial rule's id, or
  // where its evidence starts.
  w.Key("key");
  if (!c.id.empty()) w.Concat({c.kind, ":", c.id});
  else if (c.evidence) w.Concat({c.kind, ":", std::to_string(c.evidence->start_offset)});
  else w.Concat({c.kind, ":-"});
  w.Key("kind");
  w.String(c.kind);
  w.Key("message");
  w.String(c.message);
  w.EndObject();
}

namespace {

void WriteDose(JsonWriter& w, const std::optional<Dose>& d) {
  if (!d) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("text");
  w.String(d->Text());
  w.Key("unit");
  w.String(d->unit);
  w.Key("value");
  w.Double(Round4(d->value));
  w.EndObject();
}

void OptionalString(JsonWriter& w, const std::optional<std::string>& s) {
  if (s) w.String(*s);
  else w.Null();
}

}  // namespace

void WriteMentionMembers(JsonWriter& w, const DrugMention& m) {
  w.Key("action");
  OptionalString(w, m.action);
  w.Key("assertion");
  w.String(AssertionName(m.assertion));
  w.Key("dose");
  WriteDose(w, m.dose);
  w.Key("drug");
  w.StringOrNull(m.drug);
  w.Key("end_offset");
  w.Uint(m.char_end);
  w.Key("frequency");
  w.StringOrNull(m.frequency.text);
  w.Key("match");
  w.String(m.phantom ? std::string_view("phantom") : MatchKindName(m.match->kind));
  w.Key("mention");
  w.String(m.mention);
  w.Key("per_day");
  if (m.frequency.per_day) w.Double(Round4(*m.frequency.per_day));
  else w.Null();
  w.Key("prn");
  w.Bool(m.frequency.prn);
  w.Key("route");
  OptionalString(w, m.route);
  w.Key("rxcui");
  w.StringOrNull(m.rxcui);
  w.Key("start_offset");
  w.Uint(m.char_begin);
}

void WriteMention(JsonWriter& w, const DrugMention& m) {
  w.BeginObject();
  WriteMentionMembers(w, m);
  w.EndObject();
}

std::string_view WhenName(When w) {
  switch (w) {
    case When::kCurrent: return "current";
    case When::kPast: return "past";
    case When::kAny: return "any";
  }
  return "current";
}

When ParseWhen(const YAML::Node& map, const SchemaPath& path) {
  std::string v = OptionalString(map, "when", path);
  if (v.empty() || v == "current") return When::kCurrent;
  if (v == "past") return When::kPast;
  if (v == "any") return When::kAny;
  path.Key("when").Fail("must be current, past or any, got " + Quote(v));
}

}  // namespace scribe
