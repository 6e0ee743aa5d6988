// Unit tests for fhir/display.h: NFC and white-space folding of display strings.
#include "fhir/display.h"

#include <gtest/gtest.h>

#include <string>

namespace scribe::fhir {
namespace {

TEST(NormalizeDisplay, FoldsWhiteSpaceRunsAndTrims) {
  EXPECT_EQ(NormalizeDisplay("  Ibuprofen \t 200\nMG  Oral Tablet "), "Ibuprofen 200 MG Oral Tablet");
  EXPECT_EQ(NormalizeDisplay(""), "");
  EXPECT_EQ(NormalizeDisplay(" \t\n"), "");
}

TEST(NormalizeDisplay, FoldsUnicodeSpaces) {
  // NO-BREAK SPACE, EM SPACE, LINE SEPARATOR, NEXT LINE.
  EXPECT_EQ(NormalizeDisplay("lisinopril\u00a010\u2003MG\u2028Oral\u0085Tablet"), "lisinopril 10 MG Oral Tablet");
}

TEST(NormalizeDisplay, ComposesCanonicalEquivalents) {
  // e + COMBINING ACUTE ACCENT is the same text as U+00E9.
  EXPECT_EQ(NormalizeDisplay("Cafe\u0301"), "Caf\u00e9");
  EXPECT_EQ(NormalizeDisplay("Caf\u00e9"), "Caf\u00e9");
}

TEST(NormalizeDisplay, KeepsCaseAndCompatibilityForms) {
  EXPECT_NE(NormalizeDisplay("Acetaminophen 325 MG"), NormalizeDisplay("acetaminophen 325 MG"));
  // FULLWIDTH DIGIT ONE is not "1" under NFC (it would be under NFKC).
  EXPECT_EQ(NormalizeDisplay("\uff11 MG"), "\uff11 MG");
  // MICRO SIGN stays itself.
  EXPECT_EQ(NormalizeDisplay("5 \u00b5g"), "5 \u00b5g");
}

TEST(NormalizeDisplay, InvalidUtf8KeepsBytesAndFoldsAsciiSpace) {
  std::string s = std::string("a\xff") + "  b ";
  EXPECT_EQ(NormalizeDisplay(s), std::string("a\xff") + " b");
  EXPECT_EQ(NormalizeDisplay(std::string("x\0y", 3)), std::string("x\0y", 3));
}

}  // namespace
}  // namespace scribe::fhir
