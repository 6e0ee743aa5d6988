// compact_json.h — is a text already what SQLite's json() would make of it?
//
//   IsCompactJson(R"({"a":[1,2.5e3,"x"],"b":null})")   // true
//   IsCompactJson(R"({"a": 1})")                        // false: white space outside strings
//
// SQLite's json(X) checks X and removes the white space between its tokens, copying every
// string, number and literal as written. A text that is strict JSON (RFC 8259) with no white
// space outside strings is therefore its own json(): scribe_json() returns it without parsing it
// into nodes and rendering it again. Anything this scanner does not accept (white space,
// anything beyond RFC 8259, nesting deeper than kMaxCompactDepth) is left to json() itself, so
// what json() accepts or rejects is never decided here. tests/sql/scribe_json.test checks
// scribe_json(X) against json(X) for the fixture grades and for edge cases.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace scribe {

inline constexpr size_t kMaxCompactDepth = 1000;  // below SQLite's own limit (2,000 in 3.40)

// A member of a top-level object: its name as written between the quotes (escapes not decoded)
// and its value's text.
struct JsonMember {
  std::string_view key, value;
};

// True when `text` is one RFC 8259 JSON value with no white space outside its strings and no
// control character inside them, nested at most kMaxCompactDepth deep. Linear; a few
// instructions per byte. With `top_level_members`, the members of a top-level object are
// appended to it in text order.
bool IsCompactJson(std::string_view text, std::vector<JsonMember>* top_level_members = nullptr);

}  // namespace scribe
