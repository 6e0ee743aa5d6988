// vendor.cpp — vendor name keys (see vendor.h).
#include "vendor.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace scribe {

std::string VendorKey(std::string_view name) {
  utf8proc_uint8_t* folded = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(name.data()),
                                    static_cast<utf8proc_ssize_t>(name.size()), &folded,
                                    static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
                                                                   UTF8PROC_CASEFOLD | UTF8PROC_IGNORE));
  if (n < 0) return {};
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(folded, &std::free);
  // Trim, and collapse every run of Unicode white space to one ASCII space.
  std::string out;
  bool pending_space = false;
  for (utf8proc_ssize_t i = 0; i < n;) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t len = utf8proc_iterate(folded + i, n - i, &cp);
    if (len <= 0) return {};
    utf8proc_category_t cat = utf8proc_category(cp);
    bool space = cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' || cat == UTF8PROC_CATEGORY_ZS ||
                 cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
    if (space) {
      pending_space = !out.empty();
    } else {
      if (pending_space) out += ' ';
      pending_space = false;
      out.append(reinterpret_cast<const char*>(folded + i), static_cast<size_t>(len));
    }
    i += len;
  }
  return out;
}

}  // namespace scribe
