// Unit tests for badge.h: XML escaping, text widths from corpus/rules/badge_widths.tsv (DejaVu
// Sans 11 px; characters not listed use the width of 'm'), colours and the exact SVG.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "badge.h"

namespace scribe {
namespace {

// Widths from badge_widths.tsv.
constexpr double kA = 6.7407, kB = 6.9824, kM = 10.7153, kAmp = 8.5776, kSpace = 3.4966;

// ---------------------------------------------------------------- XmlEscape

TEST(XmlEscape, EscapesTheFiveCharacters) {
  EXPECT_EQ(XmlEscape("<a href=\"x\">Tom & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  EXPECT_EQ(XmlEscape("&amp;"), "&amp;amp;");  // no double-decoding: escaped again
  EXPECT_EQ(XmlEscape(""), "");
  EXPECT_EQ(XmlEscape("plain text 92%"), "plain text 92%");
}

TEST(XmlEscape, ControlCharactersBecomeSpaces) {
  EXPECT_EQ(XmlEscape("a\nb\rc\x01" "d"), "a b c d");
  EXPECT_EQ(XmlEscape(std::string("a\0b", 3)), "a b");
  EXPECT_EQ(XmlEscape("a\tb"), "a\tb");  // tab is legal XML text
}

TEST(XmlEscape, Utf8IsKept) {
  EXPECT_EQ(XmlEscape("caf\xC3\xA9 \xE2\x9C\x93"), "caf\xC3\xA9 \xE2\x9C\x93");
}

// ---------------------------------------------------------------- BadgeTextWidth

TEST(BadgeTextWidth, TableWidths) {
  EXPECT_DOUBLE_EQ(BadgeTextWidth(""), 0.0);
  EXPECT_DOUBLE_EQ(BadgeTextWidth("a"), kA);
  EXPECT_DOUBLE_EQ(BadgeTextWidth("m"), kM);
  EXPECT_DOUBLE_EQ(BadgeTextWidth("&"), kAmp);
  EXPECT_DOUBLE_EQ(BadgeTextWidth(" "), kSpace);
  EXPECT_DOUBLE_EQ(BadgeTextWidth("ab"), kA + kB);
  EXPECT_NEAR(BadgeTextWidth("scribe-trials"), 64.4964, 1e-9);
  EXPECT_NEAR(BadgeTextWidth("92% pass"), 53.1308, 1e-9);
}

TEST(BadgeTextWidth, UnlistedCharactersUseTheWidthOfM) {
  EXPECT_DOUBLE_EQ(BadgeTextWidth("\xC3\xA9"), kM);          // é: one character, two bytes
  EXPECT_DOUBLE_EQ(BadgeTextWidth("\xE2\x9C\x93"), kM);      // ✓: three bytes
  EXPECT_DOUBLE_EQ(BadgeTextWidth("\xF0\x9F\x98\x80"), kM);  // 😀: four bytes
  EXPECT_DOUBLE_EQ(BadgeTextWidth("\t"), kM);                // control characters are not listed
  EXPECT_DOUBLE_EQ(BadgeTextWidth("a\xC3\xA9" "b"), kA + kM + kB);
}

// ---------------------------------------------------------------- BadgeSvg

std::string MessageFill(const std::string& svg) {
  static const std::regex re("<rect x=\"[0-9]+\" width=\"[0-9]+\" height=\"20\" fill=\"([^\"]*)\"/>");
  std::smatch m;
  if (!std::regex_search(svg, m, re)) return "(no message rect)";
  return m[1];
}

TEST(BadgeSvg, ExactSmallBadge) {
  // label "a": 6.7407 -> 6.7 -> width ceil(16.7) = 17; message "b": 6.9824 -> 7.0 -> 17; total 34
  const std::string expected =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"34\" height=\"20\" role=\"img\" aria-label=\"a: b\">"
      "<title>a: b</title>"
      "<linearGradient id=\"s\" x2=\"0\" y2=\"100%\"><stop offset=\"0\" stop-color=\"#bbb\" stop-opacity=\".1\"/>"
      "<stop offset=\"1\" stop-opacity=\".1\"/></linearGradient>"
      "<clipPath id=\"r\"><rect width=\"34\" height=\"20\" rx=\"3\" fill=\"#fff\"/></clipPath>"
      "<g clip-path=\"url(#r)\"><rect width=\"17\" height=\"20\" fill=\"#555\"/>"
      "<rect x=\"17\" width=\"17\" height=\"20\" fill=\"#007ec6\"/><rect width=\"34\" height=\"20\" fill=\"url(#s)\"/></g>"
      "<g fill=\"#fff\" text-anchor=\"middle\" font-family=\"Verdana,Geneva,DejaVu Sans,sans-serif\" "
      "text-rendering=\"geometricPrecision\" font-size=\"110\">"
      "<text aria-hidden=\"true\" x=\"85\" y=\"150\" fill=\"#010101\" fill-opacity=\".3\" transform=\"scale(.1)\" "
      "textLength=\"67\">a</text>"
      "<text x=\"85\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"67\">a</text>"
      "<text aria-hidden=\"true\" x=\"255\" y=\"150\" fill=\"#010101\" fill-opacity=\".3\" transform=\"scale(.1)\" "
      "textLength=\"70\">b</text>"
      "<text x=\"255\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"70\">b</text></g></svg>";
  EXPECT_EQ(BadgeSvg("a", "b", "blue"), expected);
}

TEST(BadgeSvg, ScribeTrialsWidths) {
  // 64.4964 -> 64.5 -> 75 px; 53.1308 -> 53.1 -> 64 px; total 139
  std::string svg = BadgeSvg("scribe-trials", "92% pass", "brightgreen");
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"139\" height=\"20\""), std::string::npos);
  EXPECT_NE(svg.find("<rect width=\"75\" height=\"20\" fill=\"#555\"/><rect x=\"75\" width=\"64\" height=\"20\" fill=\"#4c1\"/>"),
            std::string::npos);
  EXPECT_NE(svg.find("x=\"375\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"645\">scribe-trials</text>"),
            std::string::npos);
  EXPECT_NE(svg.find("x=\"1070\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"531\">92% pass</text>"),
            std::string::npos);
}

TEST(BadgeSvg, LabelAndMessageAreEscapedEverywhere) {
  std::string svg = BadgeSvg("<script>alert(1)</script>", "\"&'", "red");
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("aria-label=\"&lt;script&gt;alert(1)&lt;/script&gt;: &quot;&amp;&#39;\""), std::string::npos);
  EXPECT_NE(svg.find("<title>&lt;script&gt;alert(1)&lt;/script&gt;: &quot;&amp;&#39;</title>"), std::string::npos);
  // four <text> elements, each with escaped content
  size_t count = 0;
  for (size_t p = 0; (p = svg.find("&lt;script&gt;alert(1)&lt;/script&gt;</text>", p)) != std::string::npos; ++p) ++count;
  EXPECT_EQ(count, 2u);
}

TEST(BadgeSvg, WidthIsMeasuredOnTheUnescapedText) {
  // "&" is 8.5776 px -> 8.6 -> ceil(18.6) = 19, not the width of "&amp;"
  std::string svg = BadgeSvg("&", "x", "blue");
  EXPECT_NE(svg.find("<rect width=\"19\" height=\"20\" fill=\"#555\"/>"), std::string::npos);
  EXPECT_NE(svg.find("textLength=\"86\">&amp;</text>"), std::string::npos);
}

TEST(BadgeSvg, NamedColours) {
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "brightgreen")), "#4c1");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "green")), "#97ca00");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "yellowgreen")), "#a4a61d");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "yellow")), "#dfb317");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "orange")), "#fe7d37");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "red")), "#e05d44");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "blue")), "#007ec6");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "lightgrey")), "#9f9f9f");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "grey")), "#555");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "gray")), "#555");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "success")), "#4c1");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "important")), "#fe7d37");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "critical")), "#e05d44");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "informational")), "#007ec6");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "inactive")), "#9f9f9f");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "RED")), "#e05d44");      // case-insensitive
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", " green ")), "#97ca00");  // trimmed
}

TEST(BadgeSvg, HexColours) {
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "#ABC")), "#abc");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "abcdef")), "#abcdef");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "#123456")), "#123456");
  EXPECT_EQ(MessageFill(BadgeSvg("l", "m", "123")), "#123");
}

TEST(BadgeSvg, AnythingElseFallsBackToGrey) {
  for (const char* c : {"", "#abcd", "#gggggg", "#12345", "javascript:alert(1)", "\"/><script>", "url(#s)", "purple",
                        "#", "##abc"})
    EXPECT_EQ(MessageFill(BadgeSvg("l", "m", c)), "#9f9f9f") << c;
}

TEST(BadgeSvg, EmptyLabelAndMessage) {
  // zero-width text: 10 px padding each
  std::string svg = BadgeSvg("", "", "blue");
  EXPECT_NE(svg.find("width=\"20\" height=\"20\" role=\"img\" aria-label=\": \""), std::string::npos);
}

}  // namespace
}  // namespace scribe
