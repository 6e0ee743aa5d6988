// vendor.h — vendor identity without accounts: the key a vendor name is unique by.
//
//   VendorKey("  Careful  Scribe ")  == VendorKey("careful scribe")    // "careful scribe"
//   VendorKey("Ｃａｒｅｆｕｌ Scribe") == "careful scribe"               // full-width folds (NFKC)
//
// Two names are the same vendor when their keys are equal: Unicode NFKC normalisation with case
// folding (utf8proc), white space trimmed and runs of it collapsed to one space. The display
// name a vendor chose is kept as written.
#pragma once

#include <string>
#include <string_view>

namespace scribe {

// The comparison key of a vendor name; "" when nothing is left (or the bytes are not UTF-8).
std::string VendorKey(std::string_view name);

}  // namespace scribe
