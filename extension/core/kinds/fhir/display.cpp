// fhir/display.cpp — NFC and white-space folding for display comparison (utf8proc).
#include "fhir/display.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace scribe::fhir {
namespace {

bool IsWhiteSpace(utf8proc_int32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r' || cp == 0x85) return true;
  utf8proc_category_t c = utf8proc_category(cp);
  return c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

std::string FoldAsciiWhiteSpace(std::string_view s) {
  std::string out;
  bool pending = false;
  for (char ch : s) {
    bool space = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
    if (space) {
      pending = !out.empty();
      continue;
    }
    if (pending) out += ' ';
    pending = false;
    out += ch;
  }
  return out;
}

}  // namespace

std::string NormalizeDisplay(std::string_view s) {
  utf8proc_uint8_t* mapped = nullptr;
  utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()),
                   &mapped, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(mapped, &std::free);
  if (n < 0) return FoldAsciiWhiteSpace(s);
  std::string out;
  out.reserve(static_cast<size_t>(n));
  bool pending = false;
  for (utf8proc_ssize_t i = 0; i < n;) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t len = utf8proc_iterate(mapped + i, n - i, &cp);
    if (len <= 0) return FoldAsciiWhiteSpace(s);  // cannot happen after a successful map
    if (IsWhiteSpace(cp)) {
      pending = !out.empty();
    } else {
      if (pending) out += ' ';
      pending = false;
      out.append(reinterpret_cast<const char*>(mapped + i), static_cast<size_t>(len));
    }
    i += len;
  }
  return out;
}

}  // namespace scribe::fhir
