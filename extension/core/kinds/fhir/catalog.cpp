// fhir/catalog.cpp — parsing corpus/fhir/rxnorm_catalog.tsv, max_daily_dose.tsv and dose_units.tsv.
#include "fhir/catalog.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "embedded.h"
#include "text.h"

namespace scribe::fhir {
namespace {

[[noreturn]] void Fail(std::string_view file, size_t line, const std::string& message) {
  throw std::runtime_error(std::string(file) + " line " + std::to_string(line) + ": " + message);
}

// Data rows of a TSV file: comment lines (#) and the header are skipped; every row must have
// exactly `columns` fields.
template <typename F>
void ForEachRow(std::string_view tsv, std::string_view file, size_t columns, F&& row) {
  if (tsv.empty()) throw std::runtime_error(std::string(file) + ": empty or not embedded");
  size_t line_no = 0;
  bool header = true;
  for (std::string_view line : Split(tsv, '\n')) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string_view> f = Split(line, '\t');
    if (f.size() != columns)
      Fail(file, line_no, "expected " + std::to_string(columns) + " columns, got " + std::to_string(f.size()));
    row(f, line_no);
  }
}

std::optional<double> ParseNumber(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string str(s);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(str.c_str(), &end);
  if (errno != 0 || end != str.c_str() + str.size()) return std::nullopt;
  return v;
}

std::optional<UnitFamily> ParseFamily(std::string_view s) {
  if (s == "mass") return UnitFamily::kMass;
  if (s == "volume") return UnitFamily::kVolume;
  if (s == "unit") return UnitFamily::kUnit;
  if (s == "count") return UnitFamily::kCount;
  if (s == "time") return UnitFamily::kTime;
  return std::nullopt;
}

// "0.044 MG/ACTUAT" -> {0.044, "MG", "ACTUAT"}.
std::optional<Strength> ParseStrength(std::string_view s) {
  size_t space = s.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  std::optional<double> value = ParseNumber(s.substr(0, space));
  if (!value) return std::nullopt;
  std::string_view unit = s.substr(space + 1);
  Strength st{*value, std::string(unit), ""};
  if (size_t slash = unit.find('/'); slash != std::string_view::npos) {
    st.unit = std::string(unit.substr(0, slash));
    st.per = std::string(unit.substr(slash + 1));
  }
  return st;
}

std::vector<std::string> SplitBar(std::string_view s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  for (std::string_view p : Split(s, '|')) out.emplace_back(p);
  return out;
}

}  // namespace

DoseUnits DoseUnits::Parse(std::string_view tsv, std::string_view file) {
  DoseUnits u;
  ForEachRow(tsv, file, 4, [&](const std::vector<std::string_view>& f, size_t line) {
    std::optional<UnitFamily> family = ParseFamily(f[1]);
    if (!family) Fail(file, line, "unknown family \"" + std::string(f[1]) + "\"");
    std::optional<double> factor = ParseNumber(f[2]);
    if (!factor || *factor <= 0) Fail(file, line, "factor must be a positive number");
    std::string code(f[0]);
    if (!u.by_code_.emplace(code, DoseUnit{code, *family, *factor}).second)
      Fail(file, line, "duplicate unit \"" + code + "\"");
    if (!f[3].empty()) u.rxnorm_.emplace(std::string(f[3]), code);
  });
  return u;
}

const DoseUnit* DoseUnits::Find(std::string_view ucum_code) const {
  if (ucum_code.size() >= 2 && ucum_code.front() == '{' && ucum_code.back() == '}' &&
      ucum_code.find_first_of("{}", 1) == ucum_code.size() - 1)
    return &annotation_;
  auto it = by_code_.find(std::string(ucum_code));
  return it == by_code_.end() ? nullptr : &it->second;
}

const DoseUnit* DoseUnits::FindRxNorm(std::string_view rxnorm_unit) const {
  auto it = rxnorm_.find(std::string(rxnorm_unit));
  return it == rxnorm_.end() ? nullptr : Find(it->second);
}

RxNormCatalog RxNormCatalog::Parse(std::string_view tsv, std::string_view file) {
  RxNormCatalog c;
  ForEachRow(tsv, file, 8, [&](const std::vector<std::string_view>& f, size_t line) {
    CatalogDrug d;
    d.code = std::string(f[0]);
    d.tty = std::string(f[1]);
    d.display = std::string(f[2]);
    d.ingredients = SplitBar(f[3]);
    for (const std::string& s : SplitBar(f[4])) {
      std::optional<Strength> st = ParseStrength(s);
      if (!st) Fail(file, line, "cannot read strength \"" + s + "\"");
      d.strengths.push_back(*st);
    }
    d.dose_form = std::string(f[5]);
    d.brand = std::string(f[6]);
    d.source = std::string(f[7]);
    if (d.code.empty() || d.display.empty()) Fail(file, line, "code and display are required");
    if (!c.by_code_.emplace(d.code, c.drugs_.size()).second) Fail(file, line, "duplicate code " + d.code);
    c.drugs_.push_back(std::move(d));
  });
  return c;
}

const CatalogDrug* RxNormCatalog::Find(std::string_view code) const {
  auto it = by_code_.find(std::string(code));
  return it == by_code_.end() ? nullptr : &drugs_[it->second];
}

DoseLimits DoseLimits::Parse(std::string_view tsv, std::string_view file, const DoseUnits& units) {
  DoseLimits l;
  ForEachRow(tsv, file, 7, [&](const std::vector<std::string_view>& f, size_t line) {
    DoseCeiling c;
    c.rxcui = std::string(f[0]);
    c.ingredient = std::string(f[1]);
    if (c.rxcui.empty() == c.ingredient.empty()) Fail(file, line, "give exactly one of rxcui and ingredient");
    if (!f[2].empty()) {
      c.max = ParseNumber(f[2]);
      if (!c.max || *c.max <= 0) Fail(file, line, "max must be a positive number or empty");
    }
    c.unit = std::string(f[3]);
    const DoseUnit* unit = units.Find(c.unit);
    if (unit == nullptr || unit->family == UnitFamily::kTime) Fail(file, line, "unknown dose unit \"" + c.unit + "\"");
    c.period = std::string(f[4]);
    if (c.period != "d" && c.period != "wk") Fail(file, line, "period must be d or wk");
    c.basis = std::string(f[5]);
    c.source = std::string(f[6]);
    if (c.basis.empty() || c.source.empty()) Fail(file, line, "every row needs its basis and source");
    auto& index = c.rxcui.empty() ? l.by_ingredient_ : l.by_rxcui_;
    if (!index.emplace(c.rxcui.empty() ? c.ingredient : c.rxcui, l.rows_.size()).second)
      Fail(file, line, "duplicate row for " + (c.rxcui.empty() ? c.ingredient : c.rxcui));
    l.rows_.push_back(std::move(c));
  });
  return l;
}

const DoseCeiling* DoseLimits::For(const CatalogDrug& drug) const {
  if (auto it = by_rxcui_.find(drug.code); it != by_rxcui_.end()) return &rows_[it->second];
  if (drug.ingredients.size() != 1) return nullptr;
  auto it = by_ingredient_.find(drug.ingredients[0]);
  return it == by_ingredient_.end() ? nullptr : &rows_[it->second];
}

const DoseUnits& DefaultDoseUnits() {
  static const DoseUnits units =
      DoseUnits::Parse(embedded_file("corpus/fhir/dose_units.tsv"), "corpus/fhir/dose_units.tsv");
  return units;
}

const RxNormCatalog& DefaultCatalog() {
  static const RxNormCatalog catalog =
      RxNormCatalog::Parse(embedded_file("corpus/fhir/rxnorm_catalog.tsv"), "corpus/fhir/rxnorm_catalog.tsv");
  return catalog;
}

const DoseLimits& DefaultDoseLimits() {
  static const DoseLimits limits = DoseLimits::Parse(embedded_file("corpus/fhir/max_daily_dose.tsv"),
                                                     "corpus/fhir/max_daily_dose.tsv", DefaultDoseUnits());
  return limits;
}

}  // namespace scribe::fhir
