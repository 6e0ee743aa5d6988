// fuzz_badge.cpp — libFuzzer: badge text → BadgeSvg(label, message, color).
//
// The input is split at its first two NUL bytes into label, message and colour (vendor names
// and messages reach badges from the database, so any bytes). The SVG must never contain the
// raw markup characters of the text it escapes. Run by scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "badge.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view parts[3];
  for (auto& part : parts) {
    size_t nul = in.find('\0');
    part = in.substr(0, nul);
    in = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
  }
  std::string svg = scribe::BadgeSvg(parts[0], parts[1], parts[2]);
  if (svg.rfind("<svg ", 0) != 0) std::abort();
  // every '<' of the output opens an element of the template, never one from the input
  for (size_t at = svg.find('<'); at != std::string::npos; at = svg.find('<', at + 1)) {
    std::string_view next = std::string_view(svg).substr(at + 1, 1);
    if (next.empty() || !(next[0] == '/' || (next[0] >= 'a' && next[0] <= 'z'))) std::abort();
  }
  (void)scribe::BadgeTextWidth(parts[0]);
  return 0;
}
