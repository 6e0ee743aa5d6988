// record.cpp — the summary, thresholds and text table of record.h.
#include "record.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "stats.h"

namespace scribe::run {
namespace {

using nlohmann::json;

double Round4(double v) { return std::round(v * 10000.0) / 10000.0; }

// j[key], or null when j is not an object or has no such key (a record read from a file may
// lack anything).
const json& At(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

struct Group {
  std::map<std::string, std::vector<double>> runs_by_trial;
  std::size_t cases = 0, failed = 0, timed_out = 0, unsafe = 0;

  void Add(const json& c) {
    ++cases;
    runs_by_trial[c.value("trial", "")].push_back(c.value("score_total", 0.0));
    if (!At(c, "error").is_null()) ++failed;
    if (At(c, "error").is_object() && At(c, "error").value("timed_out", false)) ++timed_out;
    if (c.value("unsafe", false)) ++unsafe;
  }

  json ToJson(const std::string& seed_name) const {
    json j = {{"trials", runs_by_trial.size()},
              {"cases", cases},
              {"failed", failed},
              {"timed_out", timed_out},
              {"unsafe", unsafe},
              {"mean", nullptr},
              {"ci95_low", nullptr},
              {"ci95_high", nullptr}};
    if (cases == 0) return j;
    Interval ci = SuiteInterval(runs_by_trial, runs_by_trial.size(), StableSeed("scribe-run:" + seed_name));
    j["mean"] = Round4(SuiteScore(runs_by_trial, runs_by_trial.size()));
    j["ci95_low"] = Round4(ci.low);
    j["ci95_high"] = Round4(ci.high);
    return j;
  }
};

std::string Fixed(const json& v, int decimals = 3) {
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v.get<double>());
  return buf;
}

// `text` cut to `width` code points, with an ellipsis when cut; newlines become spaces.
std::string Fit(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (points + 1 > width) {
        // Leave room for the ellipsis.
        while (!out.empty() && points >= width) {
          std::size_t cut = out.size() - 1;
          while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
          out.resize(cut);
          --points;
        }
        return out + "…";
      }
      ++points;
    }
    out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : static_cast<char>(c);
  }
  return out;
}

std::string Pad(const std::string& s, std::size_t width, bool right = false) {
  std::size_t points = 0;
  for (unsigned char c : s) points += (c & 0xC0) != 0x80;
  std::string fill(points < width ? width - points : 0, ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

json Summarize(const json& cases) {
  Group all;
  std::map<std::string, Group> kinds;
  for (const json& c : cases) {
    all.Add(c);
    kinds[c.value("kind", "")].Add(c);
  }
  json summary = all.ToJson("all");
  json by_kind = json::object();
  for (const auto& [kind, group] : kinds) by_kind[kind] = group.ToJson(kind);
  summary["kinds"] = std::move(by_kind);
  return summary;
}

json Thresholds(const json& summary, std::optional<double> min_score, bool fail_on_unsafe) {
  json failures = json::array();
  if (min_score) {
    if (!At(summary, "mean").is_number())
      failures.push_back("no case was run, so the mean cannot reach --min-score " + Fixed(*min_score, 4));
    else if (At(summary, "mean").get<double>() < *min_score)
      failures.push_back("mean score " + Fixed(At(summary, "mean"), 4) + " is below --min-score " +
                         Fixed(*min_score, 4));
  }
  std::size_t unsafe = summary.value("unsafe", std::size_t{0});
  if (fail_on_unsafe && unsafe > 0)
    failures.push_back(std::to_string(unsafe) + (unsafe == 1 ? " case is" : " cases are") +
                       " unsafe (a critical error) and --fail-on-unsafe is set");
  return {{"min_score", min_score ? json(*min_score) : json(nullptr)},
          {"fail_on_unsafe", fail_on_unsafe},
          {"passed", failures.empty()},
          {"failures", failures}};
}

std::string RenderTable(const json& record, std::size_t width) {
  const json& cases = At(record, "cases");
  std::size_t id_width = 5;
  for (const json& c : cases) id_width = std::max(id_width, c.value("trial", "").size());
  const std::size_t fixed = id_width + 2 + 3 + 2 + 5 + 2 + 6 + 2;
  const std::size_t reason_width = width > fixed + 20 ? width - fixed : 20;
  std::string out = Pad("trial", id_width) + "  " + Pad("run", 3, true) + "  " + Pad("score", 5, true) + "  " +
                    Pad("unsafe", 6) + "  reasons\n";
  for (const json& c : cases) {
    std::string why;
    if (At(c, "error").is_object()) {
      why = "agent failed: " + At(c, "error").value("message", "");
      std::string tail = At(c, "error").value("stderr_tail", "");
      while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
      std::size_t last = tail.rfind('\n');
      if (!tail.empty()) why += " — " + (last == std::string::npos ? tail : tail.substr(last + 1));
    } else {
      for (const json& r : c.value("reasons", json::array())) why += (why.empty() ? "" : "; ") + r.get<std::string>();
    }
    out += Pad(c.value("trial", ""), id_width) + "  " + Pad(std::to_string(c.value("run", 0)), 3, true) + "  " +
           Pad(Fixed(At(c, "score_total")), 5, true) + "  " + Pad(c.value("unsafe", false) ? "UNSAFE" : "", 6) + "  " +
           Fit(why, reason_width) + "\n";
  }
  const json& summary = At(record, "summary");
  out += "\n" + Pad("kind", 14) + Pad("trials", 7, true) + Pad("cases", 7, true) + Pad("failed", 8, true) +
         Pad("unsafe", 8, true) + Pad("mean", 8, true) + "  95% interval\n";
  auto line = [&](const std::string& name, const json& g) {
    out += Pad(name, 14) + Pad(std::to_string(g.value("trials", 0)), 7, true) +
           Pad(std::to_string(g.value("cases", 0)), 7, true) + Pad(std::to_string(g.value("failed", 0)), 8, true) +
           Pad(std::to_string(g.value("unsafe", 0)), 8, true) + Pad(Fixed(At(g, "mean")), 8, true) + "  [" +
           Fixed(At(g, "ci95_low")) + ", " + Fixed(At(g, "ci95_high")) + "]\n";
  };
  for (const auto& [kind, g] : At(summary, "kinds").items()) line(kind, g);
  line("all", summary);
  const json& t = At(record, "thresholds");
  if (t.is_object()) {
    out += "\n";
    if (t.value("passed", true)) {
      std::string which;
      if (At(t, "min_score").is_number()) which = "--min-score " + Fixed(At(t, "min_score"), 4);
      if (t.value("fail_on_unsafe", false)) which += (which.empty() ? "" : ", ") + std::string("--fail-on-unsafe");
      out += "thresholds: passed" + (which.empty() ? "" : " (" + which + ")") + "\n";
    } else {
      for (const json& f : At(t, "failures")) out += "thresholds: FAILED: " + f.get<std::string>() + "\n";
    }
  }
  return out;
}

}  // namespace scribe::run
