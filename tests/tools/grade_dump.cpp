// grade_dump — everything the grader computes from text, written out, to compare two builds
// byte for byte (a change meant to make the grader faster must not change one byte of this).
// Run from the repository root:
//
//   build/tests/grade_dump [TEXT_DIR ...] > before.dump     # on the old build
//   build/tests/grade_dump [TEXT_DIR ...] > after.dump      # on the new build
//   cmp before.dump after.dump
//
// Writes, offline: every fixture note (tests/fixtures/notes/<trial>/*.txt, *.json) graded against
// its own trial and against every free-text trial (kinds note and rubric) as grade_submission
// stores it (GradeText); then, for every fixture note, every *.txt under corpus/ and every *.txt
// of each TEXT_DIR (for example real clinical text outside the repository), the drug mentions
// AnalyzeText finds with every field extract_drugs reads, and the text graded against two
// free-text trials chosen by its position (so that a large directory covers every trial).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "extract.h"
#include "grade.h"
#include "trial.h"
#include "validator.h"

namespace {

namespace fs = std::filesystem;
using namespace scribe;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<fs::path> Files(const fs::path& dir, const std::vector<std::string>& extensions) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() &&
        std::find(extensions.begin(), extensions.end(), e.path().extension().string()) != extensions.end())
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string Num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string DoseText(const Dose& d) {
  return Num(d.value) + (d.low ? "~" + Num(*d.low) : "") + " " + d.unit + " " + d.family + " " + d.implied_route +
         " per=" + d.per + (d.per_day ? " /day" : "") + " [" + std::to_string(d.begin) + "," + std::to_string(d.end) + ")";
}

void DumpDrugs(const std::string& name, std::string_view text) {
  AnalyzedText a = AnalyzeText(text);
  std::printf("## drugs %s (%zu tokens, %zu sentences)\n", name.c_str(), a.text.tokens.size(),
              a.text.sentence_begin.size());
  for (const DrugMention& m : a.drugs) {
    std::string doses;
    for (const Dose& d : m.doses) doses += "{" + DoseText(d) + "}";
    std::printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t[%zu,%zu)\t[%u,%u)\t%s\t%s\t%s\t%s|%d|%s\t%s\t%s\t%d%d%d%d%d\t%d:%d:%d\n",
                m.mention.c_str(), m.drug.c_str(), m.rxcui.c_str(), m.key.c_str(), m.matched_name.c_str(),
                m.drug_class.c_str(), m.salt.c_str(), m.phantom ? "phantom" : "-", m.tok_begin, m.tok_end, m.char_begin,
                m.char_end, doses.c_str(), m.dose ? DoseText(*m.dose).c_str() : "-",
                m.frequency.per_day ? Num(*m.frequency.per_day).c_str() : "-", m.frequency.text.c_str(),
                m.frequency.prn, m.route ? m.route->c_str() : "-", m.action ? m.action->c_str() : "-",
                std::string(AssertionName(m.assertion)).c_str(), m.in_allergy_context, m.on_med_list,
                m.in_parenthetical, m.gloss, m.match.has_value(), m.match ? int(m.match->kind) : -1,
                m.match ? m.match->distance : -1, m.match ? int(m.match->token_count) : -1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Corpus corpus = LoadCorpus("corpus/scripts", DefaultRules(), DefaultTerminology());
  std::map<std::string, std::unique_ptr<PreparedTrial>> prepared;
  std::vector<const PreparedTrial*> free_text;
  for (Trial& t : corpus.trials) {
    std::string id = t.id;
    prepared[id] = std::make_unique<PreparedTrial>(std::move(t), DefaultRules(), DefaultTerminology(),
                                                   DefaultAssertionAnalyzer());
  }
  for (const auto& [id, p] : prepared)
    if (p->trial().kind == "note" || p->trial().kind == "rubric") free_text.push_back(p.get());
  OfflineValidator validator(DefaultTerminology());
  auto grade = [&](const PreparedTrial& p, const std::string& name, std::string_view text) {
    std::printf("## grade %s %s\n%s\n", p.trial().id.c_str(), name.c_str(),
                GradeText(p, text, corpus.corpus_hash, validator).c_str());
  };
  std::vector<std::pair<std::string, std::string>> texts;  // name, text
  for (const auto& [id, p] : prepared) {
    for (const fs::path& f : Files("tests/fixtures/notes/" + id, {".txt", ".json"})) {
      std::string text = ReadFile(f);
      grade(*p, f.string(), text);
      for (const PreparedTrial* other : free_text)
        if (other != p.get()) grade(*other, f.string(), text);
      texts.emplace_back(f.string(), std::move(text));
    }
  }
  std::vector<fs::path> more = Files("corpus", {".txt"});
  for (int i = 1; i < argc; ++i) {
    std::vector<fs::path> extra = Files(argv[i], {".txt"});
    more.insert(more.end(), extra.begin(), extra.end());
  }
  size_t position = 0;
  for (const fs::path& f : more) {
    std::string text = ReadFile(f);
    grade(*free_text[position % free_text.size()], f.string(), text);
    grade(*free_text[(position * 7 + 3) % free_text.size()], f.string(), text);
    ++position;
    texts.emplace_back(f.string(), std::move(text));
  }
  for (const auto& [name, text] : texts) DumpDrugs(name, text);
  return 0;
}
