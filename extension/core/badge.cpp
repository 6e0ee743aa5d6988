// badge.cpp — SVG badge rendering (see badge.h).
#include "badge.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "embedded.h"
#include "text.h"

namespace scribe {
namespace {

const std::array<double, 128>& Widths() {
  static const std::array<double, 128> widths = [] {
    std::array<double, 128> w{};
    for (std::string_view line : Split(embedded_file("corpus/rules/badge_widths.tsv"), '\n')) {
      if (line.empty() || line.front() == '#') continue;
      auto f = Split(line, '\t');
      if (f.size() < 2) continue;
      int cp = std::atoi(std::string(f[0]).c_str());
      if (cp >= 0 && cp < 128) w[cp] = std::strtod(std::string(f[1]).c_str(), nullptr);
    }
    return w;
  }();
  return widths;
}

std::string ResolveColor(std::string_view color) {
  static const std::map<std::string, std::string, std::less<>> kNamed = {
      {"brightgreen", "#4c1"}, {"green", "#97ca00"}, {"yellowgreen", "#a4a61d"}, {"yellow", "#dfb317"},
      {"orange", "#fe7d37"},   {"red", "#e05d44"},   {"blue", "#007ec6"},        {"lightgrey", "#9f9f9f"},
      {"grey", "#555"},        {"gray", "#555"},     {"success", "#4c1"},        {"important", "#fe7d37"},
      {"critical", "#e05d44"}, {"informational", "#007ec6"}, {"inactive", "#9f9f9f"}};
  std::string c = Lower(Trim(color));
  if (auto it = kNamed.find(c); it != kNamed.end()) return it->second;
  std::string hex = !c.empty() && c[0] == '#' ? c.substr(1) : c;
  bool ok = (hex.size() == 3 || hex.size() == 6) &&
            hex.find_first_not_of("0123456789abcdef") == std::string::npos;
  return ok ? "#" + hex : "#9f9f9f";
}

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') out += ' ';
        else out += c;
    }
  }
  return out;
}

double BadgeTextWidth(std::string_view text) {
  const auto& w = Widths();
  double total = 0;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
    total += c < 0x80 && w[c] > 0 ? w[c] : w['m'];
    i += n;
  }
  return total;
}

std::string BadgeSvg(std::string_view label, std::string_view message, std::string_view color) {
  const double label_text = std::round(BadgeTextWidth(label) * 10) / 10;
  const double message_text = std::round(BadgeTextWidth(message) * 10) / 10;
  const double lw = std::ceil(label_text + 10), mw = std::ceil(message_text + 10), total = lw + mw;
  const std::string l = XmlEscape(label), m = XmlEscape(message), fill = ResolveColor(color);
  const std::string title = l + ": " + m;
  std::string svg;
  svg.reserve(1200);
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Fmt(total) + "\" height=\"20\" role=\"img\" aria-label=\"" + title + "\">";
  svg += "<title>" + title + "</title>";
  svg += "<linearGradient id=\"s\" x2=\"0\" y2=\"100%\"><stop offset=\"0\" stop-color=\"#bbb\" stop-opacity=\".1\"/><stop offset=\"1\" stop-opacity=\".1\"/></linearGradient>";
  svg += "<clipPath id=\"r\"><rect width=\"" + Fmt(total) + "\" height=\"20\" rx=\"3\" fill=\"#fff\"/></clipPath>";
  svg += "<g clip-path=\"url(#r)\"><rect width=\"" + Fmt(lw) + "\" height=\"20\" fill=\"#555\"/><rect x=\"" + Fmt(lw) + "\" width=\"" +
         Fmt(mw) + "\" height=\"20\" fill=\"" + fill + "\"/><rect width=\"" + Fmt(total) + "\" height=\"20\" fill=\"url(#s)\"/></g>";
  svg += "<g fill=\"#fff\" text-anchor=\"middle\" font-family=\"Verdana,Geneva,DejaVu Sans,sans-serif\" text-rendering=\"geometricPrecision\" font-size=\"110\">";
  auto text = [&](double x, double len, const std::string& s) {
    svg += "<text aria-hidden=\"true\" x=\"" + Fmt(x * 10) + "\" y=\"150\" fill=\"#010101\" fill-opacity=\".3\" transform=\"scale(.1)\" textLength=\"" +
           Fmt(len * 10) + "\">" + s + "</text>";
    svg += "<text x=\"" + Fmt(x * 10) + "\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"" + Fmt(len * 10) + "\">" + s + "</text>";
  };
  text(lw / 2, label_text, l);
  text(lw + mw / 2, message_text, m);
  svg += "</g></svg>";
  return svg;
}

}  // namespace scribe
