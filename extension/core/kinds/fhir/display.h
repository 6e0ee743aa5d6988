// fhir/display.h — how the FHIR kinds compare display strings: Unicode NFC, whitespace folded.
//
//   NormalizeDisplay("Ibuprofen\u00a0 200 MG ") == "Ibuprofen 200 MG"
//   NormalizeDisplay("Cafe\u0301") == NormalizeDisplay("Caf\u00e9")    // canonical equivalents
//
// Case and compatibility forms are kept: a display matches only when it is the same text.
#pragma once

#include <string>
#include <string_view>

namespace scribe::fhir {

// NFC (utf8proc), every run of Unicode white space (Zs, Zl, Zp, tab, LF, VT, FF, CR, NEL) folded
// to one ASCII space, leading and trailing white space dropped. Invalid UTF-8 is not normalised:
// its bytes are kept and only ASCII white space is folded, so equal bytes stay equal.
std::string NormalizeDisplay(std::string_view s);

}  // namespace scribe::fhir
