// badge.h — shields.io flat-style SVG badges.
//
//   BadgeSvg("scribe-trials", "92%", "brightgreen")
//
// 20 px high, text measured with DejaVu Sans 11 px advance widths (corpus/rules/badge_widths.tsv),
// role="img", aria-label and <title> for screen readers. Label and message are XML-escaped;
// the colour is a shields.io name or a hex code, anything else falls back to grey.
#pragma once

#include <string>
#include <string_view>

namespace scribe {

std::string BadgeSvg(std::string_view label, std::string_view message, std::string_view color);

// Width in px of text in DejaVu Sans 11 px.
double BadgeTextWidth(std::string_view text);

// XML/HTML text escaping (& < > " ').
std::string XmlEscape(std::string_view text);

}  // namespace scribe
