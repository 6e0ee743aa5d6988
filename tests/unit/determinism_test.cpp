// Determinism of grading: every fixture note of every corpus trial (tests/fixtures/notes/<trial>/
// *.txt) graded in corpus order, again in reverse order with freshly prepared trials, and again
// on four threads at once (each with its own prepared trials and validator, the process-wide
// tables shared), must give the same result bytes each time. A grade that depended on what was
// graded before it, on a cache's state or on a race would differ somewhere here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grade.h"
#include "trial.h"
#include "validator.h"

namespace scribe {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string trial_id;
  std::string name;  // <trial>/<file>
  std::string note;
};

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Determinism : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    corpus_ = new Corpus(LoadCorpus("corpus/scripts", DefaultRules(), DefaultTerminology()));
    cases_ = new std::vector<Case>();
    for (const Trial& t : corpus_->trials) {
      fs::path dir = fs::path("tests/fixtures/notes") / t.id;
      if (!fs::is_directory(dir)) continue;
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".txt") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) cases_->push_back({t.id, t.id + "/" + f.filename().string(), ReadAll(f)});
    }
  }
  static void TearDownTestSuite() {
    delete cases_;
    delete corpus_;
  }

  // Prepares every trial afresh (nothing carried over from an earlier pass).
  static std::map<std::string, std::unique_ptr<PreparedTrial>> Prepare() {
    std::map<std::string, std::unique_ptr<PreparedTrial>> prepared;
    for (const Trial& t : corpus_->trials)
      prepared[t.id] = std::make_unique<PreparedTrial>(t, DefaultRules(), DefaultTerminology(), DefaultAssertionAnalyzer());
    return prepared;
  }

  // Grades cases_[i] for each i in `order`; the result bytes by case name.
  static std::map<std::string, std::string> GradeAll(const std::vector<size_t>& order) {
    auto prepared = Prepare();
    OfflineValidator validator(DefaultTerminology());
    std::map<std::string, std::string> out;
    for (size_t i : order) {
      const Case& c = (*cases_)[i];
      out[c.name] = Grade(*prepared.at(c.trial_id), c.note, corpus_->corpus_hash, validator).dump();
    }
    return out;
  }

  // Calls check(case, prepared trial, note, validator) for every case's note and for the same
  // note behind a prefix of invalid UTF-8 (which results write as U+FFFD); the number of calls.
  template <class Check>
  static size_t ForEachNote(Check&& check) {
    auto prepared = Prepare();
    OfflineValidator validator(DefaultTerminology());
    size_t checked = 0;
    for (const Case& c : *cases_) {
      const PreparedTrial& p = *prepared.at(c.trial_id);
      for (const std::string& note : {c.note, "\xC0\xB0 lisinopril 10 mg \xFF daily. " + c.note}) {
        check(c, p, note, validator);
        ++checked;
      }
    }
    return checked;
  }

  static std::vector<size_t> Order(bool reverse) {
    std::vector<size_t> order(cases_->size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = reverse ? order.size() - 1 - i : i;
    return order;
  }

  static Corpus* corpus_;
  static std::vector<Case>* cases_;
};

Corpus* Determinism::corpus_ = nullptr;
std::vector<Case>* Determinism::cases_ = nullptr;

TEST_F(Determinism, EveryFixtureNoteGradesToTheSameBytesInAnyOrderAndInParallel) {
  // Every note-kind trial of the corpus has its fixture notes; the test must not pass on none.
  ASSERT_GE(cases_->size(), 60u);
  const auto forward = GradeAll(Order(false));
  const auto backward = GradeAll(Order(true));
  ASSERT_EQ(forward.size(), cases_->size());
  for (const auto& [name, bytes] : forward) EXPECT_EQ(bytes, backward.at(name)) << name << " (reverse order)";

  constexpr size_t kThreads = 4;
  std::vector<std::map<std::string, std::string>> parts(kThreads);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      std::vector<size_t> mine;  // interleaved, each thread from a different starting point
      for (size_t i = k; i < cases_->size(); i += kThreads) mine.push_back(i);
      std::rotate(mine.begin(), mine.begin() + static_cast<long>(mine.size() / 2), mine.end());
      parts[k] = GradeAll(mine);
    });
  }
  for (auto& t : threads) t.join();
  size_t seen = 0;
  for (const auto& part : parts) {
    for (const auto& [name, bytes] : part) {
      EXPECT_EQ(bytes, forward.at(name)) << name << " (parallel)";
      ++seen;
    }
  }
  EXPECT_EQ(seen, cases_->size());
}

// GradeText, which the SQL functions store, writes the result through a JsonWriter and the trial's
// ground truth from its one serialization: the bytes must be DumpJson's of the value they hold
// (members in key order, no key twice, numbers and strings as dump() writes them) for every note,
// and for a note whose evidence carries invalid UTF-8 (written as U+FFFD).
TEST_F(Determinism, GradeTextIsTheSerializedGrade) {
  size_t checked = ForEachNote([](const Case& c, const PreparedTrial& p, const std::string& note, DrugValidator& validator) {
    std::string text = GradeText(p, note, corpus_->corpus_hash, validator);
    EXPECT_EQ(text, DumpJson(Grade(p, note, corpus_->corpus_hash, validator))) << c.name;
    EXPECT_EQ(nlohmann::json::parse(text)["ground_truth"], GroundTruthJson(p.trial())) << c.name;
  });
  EXPECT_EQ(checked, 2 * cases_->size());
  ASSERT_GE(checked, 120u);
}

// DumpJson and the JsonWriter behind GradeText write results without nlohmann's serializer; the
// bytes must be what dump(-1, ' ', false, replace) writes: every fixture grade (with an
// invalid-UTF-8 note, as above) and values made to reach each branch (escapes, DEL, non-ASCII,
// truncated, overlong and stray UTF-8 bytes, floats at the edges and non-finite, integer limits,
// empty and nested containers, odd keys; the writer's own: tests/unit/json_writer_test.cpp).
TEST_F(Determinism, DumpJsonWritesWhatDumpWrites) {
  using nlohmann::json;
  auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  size_t checked = ForEachNote([&](const Case& c, const PreparedTrial& p, const std::string& note, DrugValidator& validator) {
    std::string text = GradeText(p, note, corpus_->corpus_hash, validator);
    json grade = json::parse(text);
    EXPECT_EQ(text, dump(grade)) << c.name;
    EXPECT_EQ(DumpJson(grade), dump(grade)) << c.name;
  });
  ASSERT_GE(checked, 120u);
  const std::vector<std::string> strings = {
      "", "plain", "quote \" and backslash \\", "\b\f\n\r\t", std::string("nul \0 inside", 12),
      "\x01\x1F", "del \x7F", "caf\xC3\xA9 \xE2\x80\xA8 \xF0\x9F\x92\x8A", "truncated \xE2\x80", "\xE2\x80",
      "stray \x80 byte", "overlong \xC0\xAF", "\xED\xA0\x80 surrogate", "\xF4\x90\x80\x80 beyond",
      "\xFF\xFE", "</script><svg onload=alert(1)>", "'; DROP TABLE submissions; --"};
  json all = json::array();
  for (const std::string& text : strings) {
    all.push_back(text);
    all.push_back(json{{text, text}});
  }
  for (double x : {0.0, -0.0, 0.1, 1.0, -2.5, 100.0, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 0.30000000000000004,
                   std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
    all.push_back(x);
  all.push_back(std::numeric_limits<int64_t>::min());
  all.push_back(std::numeric_limits<int64_t>::max());
  all.push_back(std::numeric_limits<uint64_t>::max());
  all.push_back(0);
  all.push_back(-1);
  all.push_back(nullptr);
  all.push_back(true);
  all.push_back(false);
  all.push_back(json::array());
  all.push_back(json::object());
  all.push_back(json{{"b", json::array({json::object(), json::array({1, "x"})})}, {"a", {{"z", nullptr}}}});
  for (const json& value : all) EXPECT_EQ(DumpJson(value), dump(value)) << dump(value);
  EXPECT_EQ(DumpJson(all), dump(all));
}

// POST /api/submit answers PublicSubmissionText(grade, …), which splices the submission's facts
// into the grade's text, where GET /api/submissions/:id answers scribe_public_result of the stored
// row: the two must be the same bytes. The stored result is the grade with id, vendor and
// created_at set (submit.sql's json_set); vendor names here include what the API refuses
// (quotes, backslashes, controls, non-ASCII, invalid UTF-8), since an operator's SQL can store
// them.
TEST_F(Determinism, PublicSubmissionTextIsThePublicViewOfTheStoredResult) {
  auto prepared = Prepare();
  OfflineValidator validator(DefaultTerminology());
  const std::string vendors[] = {"Acme Scribe", "Q\"uote\\d <svg onload=alert(1)>", "tab\there\x01", "Ünïcode Scribe",
                                 "bad \xFF utf-8", ""};
  auto stored_public = [](const std::string& grade, const std::string& id, const std::string& vendor,
                          const std::string& created_at) {
    nlohmann::json stored = nlohmann::json::parse(grade);
    stored["id"] = id;
    stored["vendor"] = vendor;
    stored["created_at"] = created_at;
    return PublicResultText(DumpJson(stored));
  };
  size_t checked = 0;
  for (const Case& c : *cases_) {
    std::string grade = GradeText(*prepared.at(c.trial_id), c.note, corpus_->corpus_hash, validator);
    const std::string& vendor = vendors[checked % std::size(vendors)];
    std::optional<std::string> shown = PublicSubmissionText(grade, "0123456789abcdef", vendor, "2026-12-02T14:30:00.123Z");
    ASSERT_TRUE(shown.has_value()) << c.name;
    EXPECT_EQ(*shown, stored_public(grade, "0123456789abcdef", vendor, "2026-12-02T14:30:00.123Z")) << c.name;
    ++checked;
  }
  ASSERT_GE(checked, 120u);

  // Where the splice would not be the public view, it declines and the caller parses.
  nlohmann::json grade = nlohmann::json::parse(GradeText(*prepared.at(cases_->front().trial_id), cases_->front().note,
                                                         corpus_->corpus_hash, validator));
  grade["sealed"] = true;  // PublicResult withholds nearly everything
  EXPECT_EQ(PublicSubmissionText(DumpJson(grade), "a", "v", "t"), std::nullopt);
  grade["sealed"] = false;
  EXPECT_EQ(PublicSubmissionText(DumpJson(grade), "a", "v", "t"), stored_public(DumpJson(grade), "a", "v", "t"));
  for (const char* key : {"id", "vendor", "created_at"}) {  // the stored result replaced the grade's own member
    nlohmann::json with = grade;
    with[key] = "from the grade";
    EXPECT_EQ(PublicSubmissionText(DumpJson(with), "a", "v", "t"), std::nullopt) << key;
  }
  EXPECT_EQ(PublicSubmissionText("{}", "a", "v", "t"), R"({"created_at":"t","id":"a","vendor":"v"})");
  EXPECT_EQ(PublicSubmissionText(R"({"a":[1,{"b":"}\""}],"z":null})", "a", "v", "t"),
            R"({"a":[1,{"b":"}\""}],"created_at":"t","id":"a","vendor":"v","z":null})");
  for (const char* bad : {"", "{", "}", "[]", "null", R"({"a":1,})", R"({"a":1)", R"({"a"1})", R"({"a":})",
                          R"({"a":[1})", R"({"a":"x})", R"({"k\u0065y":1})", R"({"a":1}})", R"({"a":1]})"})
    EXPECT_EQ(PublicSubmissionText(bad, "a", "v", "t"), std::nullopt) << bad;
}

}  // namespace
}  // namespace scribe
