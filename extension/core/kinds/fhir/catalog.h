// fhir/catalog.h — the data the fhir_write scorer reads: the RxNorm site catalog, the cited
// maximum daily doses and the UCUM dose units (corpus/fhir/*.tsv, embedded in the binary).
//
//   const RxNormCatalog& catalog = DefaultCatalog();
//   const CatalogDrug* d = catalog.Find("310965");   // Ibuprofen 200 MG Oral Tablet, 200 MG per tablet
//   const DoseCeiling* c = DefaultDoseLimits().For(*d);   // 3200 mg per day, with its label citation
//   const DoseUnit* u = DefaultDoseUnits().Find("ug");   // mass, 0.001 mg
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scribe::fhir {

enum class UnitFamily { kMass, kVolume, kUnit, kCount, kTime };

struct DoseUnit {
  std::string code;  // UCUM code ("mg", "[IU]", "{puff}")
  UnitFamily family;
  double factor = 1;  // base units per unit (mg, mL, [IU], 1, s)
};

// UCUM units from corpus/fhir/dose_units.tsv, plus every annotation "{…}" as a count.
class DoseUnits {
 public:
  // Throws std::runtime_error naming the file and line.
  static DoseUnits Parse(std::string_view tsv, std::string_view file);
  // A UCUM code ("mg", "{tbl}"); nullptr when the table does not know it.
  const DoseUnit* Find(std::string_view ucum_code) const;
  // The unit an RxNorm strength unit ("MG", "MCG", "UNT", "ML", "ACTUAT") stands for.
  const DoseUnit* FindRxNorm(std::string_view rxnorm_unit) const;

 private:
  std::unordered_map<std::string, DoseUnit> by_code_;
  std::unordered_map<std::string, std::string> rxnorm_;  // RxNorm unit -> UCUM code
  DoseUnit annotation_{"{annotation}", UnitFamily::kCount, 1};
};

// A strength as RxNorm writes it: "200 MG" (per dose unit), "0.044 MG/ACTUAT", "100 UNT/ML".
struct Strength {
  double value = 0;
  std::string unit;  // RxNorm unit of the amount ("MG")
  std::string per;   // RxNorm unit of the denominator ("ACTUAT", "ML", "HR", "MG"), "" = per dose unit
};

struct CatalogDrug {
  std::string code, tty, display;
  std::vector<std::string> ingredients;  // RxNorm IN names, lower case
  std::vector<Strength> strengths;       // one per ingredient, in name order
  std::string dose_form, brand, source;
};

class RxNormCatalog {
 public:
  static RxNormCatalog Parse(std::string_view tsv, std::string_view file);
  const CatalogDrug* Find(std::string_view code) const;
  size_t size() const { return drugs_.size(); }
  // Every product, in file order (by code).
  const std::vector<CatalogDrug>& drugs() const { return drugs_; }

 private:
  std::vector<CatalogDrug> drugs_;
  std::unordered_map<std::string, size_t> by_code_;
};

struct DoseCeiling {
  std::string rxcui, ingredient;  // exactly one is set
  std::optional<double> max;      // per period in unit; empty = the label states no maximum
  std::string unit;               // UCUM
  std::string period;             // "d" or "wk"
  std::string basis, source;      // what the label says, and which label and section
};

class DoseLimits {
 public:
  static DoseLimits Parse(std::string_view tsv, std::string_view file, const DoseUnits& units);
  // The row for this product: its own code's row, else (single-ingredient products) its
  // ingredient's row; nullptr when the table has neither.
  const DoseCeiling* For(const CatalogDrug& drug) const;
  const std::vector<DoseCeiling>& rows() const { return rows_; }

 private:
  std::vector<DoseCeiling> rows_;
  std::unordered_map<std::string, size_t> by_rxcui_, by_ingredient_;
};

// The embedded corpus/fhir tables, parsed once.
const DoseUnits& DefaultDoseUnits();
const RxNormCatalog& DefaultCatalog();
const DoseLimits& DefaultDoseLimits();

}  // namespace scribe::fhir
