// fhir/bundle.cpp — active MedicationRequests of a bundle, by RxNorm code.
#include "fhir/bundle.h"

#include <stdexcept>
#include <unordered_set>

namespace scribe::fhir {
namespace {

using nlohmann::json;

std::string StringAt(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The Medication a reference names: "#id" among the request's contained resources, a bundle
// entry whose fullUrl equals the reference, or "Medication/<id>" by resource id.
const json* ResolveMedication(const json& request, const std::string& reference, const json& entries) {
  auto is_medication = [](const json& r) { return r.is_object() && StringAt(r, "resourceType") == "Medication"; };
  if (!reference.empty() && reference[0] == '#') {
    auto contained = request.find("contained");
    if (contained == request.end() || !contained->is_array()) return nullptr;
    for (const json& r : *contained)
      if (is_medication(r) && StringAt(r, "id") == reference.substr(1)) return &r;
    return nullptr;
  }
  const std::string prefix = "Medication/";
  for (const json& e : entries) {
    if (!e.is_object()) continue;
    auto resource = e.find("resource");
    if (resource == e.end() || !is_medication(*resource)) continue;
    if (StringAt(e, "fullUrl") == reference) return &*resource;
    if (reference.rfind(prefix, 0) == 0 && StringAt(*resource, "id") == reference.substr(prefix.size()))
      return &*resource;
  }
  return nullptr;
}

}  // namespace

const json* FindRxNormCoding(const json& codeable_concept) {
  if (!codeable_concept.is_object()) return nullptr;
  auto coding = codeable_concept.find("coding");
  if (coding == codeable_concept.end() || !coding->is_array()) return nullptr;
  for (const json& c : *coding)
    if (c.is_object() && StringAt(c, "system") == kRxNormSystem && !StringAt(c, "code").empty()) return &c;
  return nullptr;
}

ActiveMedications DeriveActiveMedications(const json& bundle) {
  if (!bundle.is_object() || StringAt(bundle, "resourceType") != "Bundle")
    throw std::invalid_argument("not a FHIR Bundle (resourceType must be \"Bundle\")");
  auto entries = bundle.find("entry");
  if (entries == bundle.end() || !entries->is_array()) throw std::invalid_argument("the Bundle has no entry array");
  ActiveMedications out;
  std::unordered_set<std::string> seen;
  for (const json& e : *entries) {
    if (!e.is_object()) continue;
    auto it = e.find("resource");
    if (it == e.end() || !it->is_object()) continue;
    const json& r = *it;
    if (StringAt(r, "resourceType") != "MedicationRequest" || StringAt(r, "status") != "active") continue;
    std::string label = "MedicationRequest/" + StringAt(r, "id");
    const json* codeable = nullptr;
    if (auto cc = r.find("medicationCodeableConcept"); cc != r.end()) {
      codeable = &*cc;
    } else if (auto ref = r.find("medicationReference"); ref != r.end() && ref->is_object()) {
      std::string reference = StringAt(*ref, "reference");
      const json* medication = ResolveMedication(r, reference, *entries);
      if (medication == nullptr) {
        out.skipped.push_back(label + ": medicationReference \"" + reference + "\" names no Medication in the bundle");
        continue;
      }
      auto code = medication->find("code");
      if (code != medication->end()) codeable = &*code;
    } else {
      out.skipped.push_back(label + ": no medication[x]");
      continue;
    }
    const json* coding = codeable ? FindRxNormCoding(*codeable) : nullptr;
    if (coding == nullptr) {
      out.skipped.push_back(label + ": no RxNorm coding");
      continue;
    }
    std::string code = StringAt(*coding, "code");
    if (seen.insert(code).second) out.medications.push_back({code, StringAt(*coding, "display")});
  }
  return out;
}

}  // namespace scribe::fhir
