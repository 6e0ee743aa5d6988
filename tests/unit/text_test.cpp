// Unit tests for text.h: tokenizer, sentence splitter and normalisation helpers.
// Expected values are worked out from docs/methodology.md §1 and the contract in text.h.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rules.h"
#include "text.h"

namespace scribe {
namespace {

template <class Tokens>  // a TokenList or a vector of tokens
std::vector<std::string> Norms(const Tokens& toks) {
  std::vector<std::string> out;
  for (const Token& t : toks) out.emplace_back(t.norm);
  return out;
}

using Strings = std::vector<std::string>;

// ---------------------------------------------------------------- Tokenize: kinds and norms

TEST(Tokenize, WordsNumbersAndPunctuation) {
  auto toks = Tokenize("Sertraline 50 mg, daily.");
  ASSERT_EQ(toks.size(), 6u);
  EXPECT_EQ(Norms(toks), (Strings{"sertraline", "50", "mg", ",", "daily", "."}));
  EXPECT_EQ(toks[0].kind, TokenKind::kWord);
  EXPECT_EQ(toks[0].raw(), "Sertraline");
  EXPECT_EQ(toks[1].kind, TokenKind::kNumber);
  EXPECT_DOUBLE_EQ(toks[1].number, 50.0);
  EXPECT_EQ(toks[3].kind, TokenKind::kPunct);
  EXPECT_EQ(toks[5].kind, TokenKind::kPunct);
}

// letters_only: the norm is only a-z, however the word was written
TEST(Tokenize, LettersOnlyWords) {
  auto toks = Tokenize("Sertraline BID don't café B.I.D. e.g. q.8 10mg x\xE2\x80\x99s");
  Strings norms = Norms(toks);
  std::vector<bool> flags;
  for (const Token& t : toks) flags.push_back(t.letters_only);
  EXPECT_EQ(norms, (Strings{"sertraline", "bid", "don't", "caf\xC3\xA9", "bid", "eg", "q", ".", "8", "10", "mg", "x's"}));
  EXPECT_EQ(flags, (std::vector<bool>{true, true, false, false, true, true, true, false, false, false, true, false}));
}

TEST(Tokenize, EmptyAndWhitespaceOnly) {
  EXPECT_TRUE(Tokenize("").empty());
  EXPECT_TRUE(Tokenize(" \t\r\n\n  ").empty());
}

TEST(Tokenize, LetterDigitRunsSplit) {
  EXPECT_EQ(Norms(Tokenize("50mg")), (Strings{"50", "mg"}));
  EXPECT_EQ(Norms(Tokenize("q8h")), (Strings{"q", "8", "h"}));
  EXPECT_EQ(Norms(Tokenize("mg50")), (Strings{"mg", "50"}));
  EXPECT_EQ(Norms(Tokenize("q4-6h")), (Strings{"q", "4", "-", "6", "h"}));
  auto toks = Tokenize("50mg");
  EXPECT_EQ(toks[0].kind, TokenKind::kNumber);
  EXPECT_EQ(toks[1].kind, TokenKind::kWord);
  EXPECT_EQ(toks[0].char_end, toks[1].char_begin);  // adjacent, no gap
}

TEST(Tokenize, ThousandsGroupsAndDecimalsAreOneNumber) {
  auto toks = Tokenize("1,000 mg");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[0].kind, TokenKind::kNumber);
  EXPECT_EQ(toks[0].norm, "1000");
  EXPECT_EQ(toks[0].raw(), "1,000");
  EXPECT_DOUBLE_EQ(toks[0].number, 1000.0);

  auto big = Tokenize("12,345,678");
  ASSERT_EQ(big.size(), 1u);
  EXPECT_DOUBLE_EQ(big[0].number, 12345678.0);

  auto dec = Tokenize("0.5");
  ASSERT_EQ(dec.size(), 1u);
  EXPECT_DOUBLE_EQ(dec[0].number, 0.5);

  auto both = Tokenize("1,000.25");
  ASSERT_EQ(both.size(), 1u);
  EXPECT_DOUBLE_EQ(both[0].number, 1000.25);
}

TEST(Tokenize, CommaNotFollowedByExactlyThreeDigitsSeparates) {
  // "1,00" and "1,0000" are not thousands groups; "5, 10" is a list.
  EXPECT_EQ(Norms(Tokenize("1,00")), (Strings{"1", ",", "00"}));
  EXPECT_EQ(Norms(Tokenize("1,0000")), (Strings{"1", ",", "0000"}));
  EXPECT_EQ(Norms(Tokenize("5, 10")), (Strings{"5", ",", "10"}));
  // a trailing dot is punctuation, not a decimal point
  EXPECT_EQ(Norms(Tokenize("5.")), (Strings{"5", "."}));
  EXPECT_EQ(Norms(Tokenize(".5")), (Strings{".", "5"}));
}

TEST(Tokenize, DottedAbbreviationsJoin) {
  auto toks = Tokenize("sertraline 50 mg b.i.d.");
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[3].norm, "bid");
  EXPECT_EQ(toks[3].raw(), "b.i.d.");
  EXPECT_EQ(toks[3].kind, TokenKind::kWord);
  EXPECT_EQ(toks[3].char_begin, 17u);
  EXPECT_EQ(toks[3].char_end, 23u);

  EXPECT_EQ(Norms(Tokenize("p.o.")), (Strings{"po"}));
  EXPECT_EQ(Norms(Tokenize("p.o")), (Strings{"po"}));  // trailing group without its dot
  EXPECT_EQ(Norms(Tokenize("q.h.s.")), (Strings{"qhs"}));
  EXPECT_EQ(Norms(Tokenize("e.g. rash")), (Strings{"eg", "rash"}));
  EXPECT_EQ(Norms(Tokenize("B.I.D.")), (Strings{"bid"}));
}

TEST(Tokenize, SingleDottedWordIsNotJoined) {
  // "Dr." followed by a separate word: one group only, the dot stays punctuation.
  EXPECT_EQ(Norms(Tokenize("Dr. Smith")), (Strings{"dr", ".", "smith"}));
  EXPECT_EQ(Norms(Tokenize("No SI.")), (Strings{"no", "si", "."}));
  // groups longer than two letters never join
  EXPECT_EQ(Norms(Tokenize("tab.daily")), (Strings{"tab", ".", "daily"}));
}

TEST(Tokenize, ApostrophesInsideWords) {
  EXPECT_EQ(Norms(Tokenize("doesn't")), (Strings{"doesn't"}));
  EXPECT_EQ(Norms(Tokenize("dc'd")), (Strings{"dc'd"}));
  // typographic apostrophe normalises to ASCII
  EXPECT_EQ(Norms(Tokenize("doesn\xE2\x80\x99t")), (Strings{"doesn't"}));
  // quotes around a word are separate punctuation
  EXPECT_EQ(Norms(Tokenize("'rash'")), (Strings{"'", "rash", "'"}));
}

TEST(Tokenize, UnicodePunctuationNormalises) {
  EXPECT_EQ(Norms(Tokenize("4\xE2\x80\x93" "6")), (Strings{"4", "-", "6"}));      // en dash
  EXPECT_EQ(Norms(Tokenize("\xE2\x80\xA2 item")), (Strings{"*", "item"}));          // bullet
  EXPECT_EQ(Norms(Tokenize("50 mg \xE2\x86\x92 100 mg")), (Strings{"50", "mg", ">", "100", "mg"}));  // arrow
  EXPECT_EQ(Norms(Tokenize("\xE2\x80\x9Cok\xE2\x80\x9D")), (Strings{"\"", "ok", "\""}));   // curly quotes
}

TEST(Tokenize, CaseFlags) {
  auto toks = Tokenize("SI Si si BID Zoloft I");
  ASSERT_EQ(toks.size(), 6u);
  EXPECT_TRUE(toks[0].all_caps);
  EXPECT_TRUE(toks[0].capitalized);
  EXPECT_FALSE(toks[1].all_caps);
  EXPECT_TRUE(toks[1].capitalized);
  EXPECT_FALSE(toks[2].all_caps);
  EXPECT_FALSE(toks[2].capitalized);
  EXPECT_TRUE(toks[3].all_caps);
  EXPECT_FALSE(toks[4].all_caps);
  EXPECT_TRUE(toks[4].capitalized);
  EXPECT_TRUE(toks[5].all_caps);
  // every norm is lower case
  EXPECT_EQ(Norms(toks), (Strings{"si", "si", "si", "bid", "zoloft", "i"}));
}

TEST(Tokenize, LineFlags) {
  auto toks = Tokenize("a b\nc\n\nd");
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_TRUE(toks[0].line_start);
  EXPECT_FALSE(toks[1].line_start);
  EXPECT_TRUE(toks[2].line_start);
  EXPECT_FALSE(toks[2].blank_line_before);
  EXPECT_TRUE(toks[3].line_start);
  EXPECT_TRUE(toks[3].blank_line_before);
}

// ---------------------------------------------------------------- offsets

TEST(Tokenize, OffsetsAreCodePointsForUnicodeText) {
  // "Über" is 4 code points / 5 bytes.
  auto toks = Tokenize("\xC3\x9C" "ber 50mg");
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[0].norm, "\xC3\x9C" "ber");  // lower-casing is ASCII-only: "Ü" kept as is
  EXPECT_EQ(toks[0].char_begin, 0u);
  EXPECT_EQ(toks[0].char_end, 4u);
  EXPECT_EQ(toks[0].byte_begin, 0u);
  EXPECT_EQ(toks[0].byte_end, 5u);
  EXPECT_EQ(toks[1].char_begin, 5u);
  EXPECT_EQ(toks[1].char_end, 7u);
  EXPECT_EQ(toks[1].byte_begin, 6u);
  EXPECT_EQ(toks[2].char_begin, 7u);
  EXPECT_EQ(toks[2].char_end, 9u);
  EXPECT_EQ(toks[2].byte_end, 10u);
}

TEST(Tokenize, OffsetsWithCjkAndAstralCodePoints) {
  // 患者 (2 code points, 6 bytes), space, 😀 (1 code point, 4 bytes), space, Zoloft
  const std::string text = "\xE6\x82\xA3\xE8\x80\x85 \xF0\x9F\x98\x80 Zoloft";
  auto toks = Tokenize(text);
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[0].char_begin, 0u);
  EXPECT_EQ(toks[0].char_end, 2u);
  EXPECT_EQ(toks[1].char_begin, 3u);  // the emoji is a "letter": part of a word
  EXPECT_EQ(toks[1].char_end, 4u);
  EXPECT_EQ(toks[2].norm, "zoloft");
  EXPECT_EQ(toks[2].char_begin, 5u);
  EXPECT_EQ(toks[2].char_end, 11u);
  EXPECT_EQ(toks[2].byte_begin, 12u);
}

TEST(Tokenize, NonBreakingAndThinSpacesSeparate) {
  // U+00A0 and U+202F are spaces: "50\u00A0mg" is two tokens.
  auto toks = Tokenize("50\xC2\xA0mg");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[1].norm, "mg");
  EXPECT_EQ(toks[1].char_begin, 3u);
}

// ---------------------------------------------------------------- invalid UTF-8

TEST(Tokenize, OverlongUtf8IsNeverADigit) {
  // "\xC0\xB0" would decode to '0' if overlong forms were accepted.
  auto toks = Tokenize("1\xC0\xB0");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[0].kind, TokenKind::kNumber);
  EXPECT_DOUBLE_EQ(toks[0].number, 1.0);
  EXPECT_EQ(toks[1].kind, TokenKind::kWord);
  // each invalid byte counts as one code point
  EXPECT_EQ(toks[1].char_begin, 1u);
  EXPECT_EQ(toks[1].char_end, 3u);

  auto alone = Tokenize("\xC0\xB0");
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_NE(alone[0].kind, TokenKind::kNumber);

  // overlong '.' (0x2E) never joins numbers into a decimal
  auto dot = Tokenize("1\xC0\xAE" "5");
  ASSERT_EQ(dot.size(), 3u);
  EXPECT_DOUBLE_EQ(dot[0].number, 1.0);
  EXPECT_DOUBLE_EQ(dot[2].number, 5.0);
}

TEST(Tokenize, OverlongSpaceAndNewlineAreNotWhitespace) {
  // overlong ' ' (C0 A0) is not a separator: "a\xC0\xA0b" stays one word
  auto toks = Tokenize("a\xC0\xA0" "b");
  ASSERT_EQ(toks.size(), 1u);
  EXPECT_EQ(toks[0].char_end, 4u);  // a, two invalid bytes, b
}

TEST(Tokenize, TruncatedSequenceCountsByteByByte) {
  // "\xE6\x82" is a truncated 3-byte sequence: 2 invalid bytes, then "x"
  auto toks = Tokenize("\xE6\x82 x");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[1].norm, "x");
  EXPECT_EQ(toks[1].char_begin, 3u);
}

// The tokenizer reads ASCII through a table and everything else through the UTF-8 decoder: the
// two must agree where they meet (curly apostrophes inside words, control bytes, accented
// capitals, numbers past 15 digits).
TEST(Tokenize, MixedAsciiAndUtf8AsWorkedOut) {
  auto toks = Tokenize("O\xE2\x80\x99Neil\xE2\x80\x99s \x01rash\xE2\x80\x99\x7F \xC3\x89" "COLE \xE2\x80\x99s");
  ASSERT_EQ(toks.size(), 6u);
  EXPECT_EQ(Norms(toks), (Strings{"o'neil's", "rash", "'", "\xC3\x89" "cole", "'", "s"}));  // lower case is ASCII only
  EXPECT_EQ(toks[0].raw(), "O\xE2\x80\x99Neil\xE2\x80\x99s");
  EXPECT_EQ(toks[0].char_begin, 0u);
  EXPECT_EQ(toks[0].char_end, 8u);
  EXPECT_TRUE(toks[0].capitalized);
  EXPECT_FALSE(toks[0].all_caps);
  EXPECT_EQ(toks[1].char_begin, 10u);  // after the space and the control byte \x01
  EXPECT_EQ(toks[1].byte_begin, 14u);
  EXPECT_EQ(toks[2].raw(), "\xE2\x80\x99");  // a final apostrophe is punctuation
  EXPECT_EQ(toks[2].char_begin, 14u);
  EXPECT_EQ(toks[2].kind, TokenKind::kPunct);
  EXPECT_EQ(toks[3].char_begin, 17u);  // \x7F and the space are whitespace
  EXPECT_FALSE(toks[3].capitalized);   // capitals are ASCII only: "É" is no capital
  EXPECT_TRUE(toks[3].all_caps);
  EXPECT_EQ(toks[4].kind, TokenKind::kPunct);  // a leading apostrophe starts no word
  EXPECT_EQ(toks[5].char_end, 25u);
}

// The tokenizer hashes a norm as it writes it; every way of writing one gives HashWord(norm).
TEST(Tokenize, NormHashIsHashWordOfNorm) {
  auto toks = Tokenize("O\xE2\x80\x99Neil b.i.d. P.O 1,000.5 mg \xE2\x80\x94 \xE2\x80\x9Cok\xE2\x80\x9D \xC3\x89" "COLE q8h \xFF");
  EXPECT_EQ(Norms(toks), (Strings{"o'neil", "bid", "po", "1000.5", "mg", "-", "\"", "ok", "\"", "\xC3\x89" "cole", "q", "8",
                                  "h", "\xFF"}));
  for (const Token& t : toks) {
    EXPECT_EQ(t.norm_hash, HashWord(t.norm)) << t.norm;
    EXPECT_EQ(t.folded_hash, HashWord(t.folded)) << t.norm;
  }
}

TEST(Tokenize, LongNumbersAsStrtodReadsThem) {
  auto toks = Tokenize("123456789012345 1234567890123456 9,007,199,254,740,993 000123 0.1");
  ASSERT_EQ(toks.size(), 5u);
  EXPECT_EQ(toks[0].number, 123456789012345.0);
  EXPECT_EQ(toks[1].number, 1234567890123456.0);
  EXPECT_EQ(toks[2].norm, "9007199254740993");
  EXPECT_EQ(toks[2].number, 9007199254740992.0);  // the nearest double
  EXPECT_EQ(toks[3].number, 123.0);
  EXPECT_EQ(toks[3].norm, "000123");
  EXPECT_EQ(toks[4].number, 0.1);
}

// ---------------------------------------------------------------- CodePointCount

TEST(CodePointCount, ValidText) {
  EXPECT_EQ(CodePointCount(""), 0u);
  EXPECT_EQ(CodePointCount("abc"), 3u);
  EXPECT_EQ(CodePointCount("\xC3\x9C" "ber"), 4u);
  EXPECT_EQ(CodePointCount("\xE6\x82\xA3\xE8\x80\x85 \xF0\x9F\x98\x80"), 4u);
  EXPECT_EQ(CodePointCount("\xFF\xFE"), 2u);  // stray bytes count one each
  EXPECT_EQ(CodePointCount("a\xE2\x80\x99\xFF" "b\xC3"), 5u);  // ASCII and not, interleaved
  // runs of eight ASCII bytes and more, broken by multi-byte and stray bytes at every offset
  EXPECT_EQ(CodePointCount("abcdefgh"), 8u);
  EXPECT_EQ(CodePointCount("abcdefghi"), 9u);
  EXPECT_EQ(CodePointCount("abcdefg\xC3\x9C" "abcdefgh"), 16u);
  EXPECT_EQ(CodePointCount("abcdefgh\xE6\x82\xA3" "abcdefgh\xFF" "abcdefg"), 25u);
  EXPECT_EQ(CodePointCount("\xC3" "abcdefghijklmnop\xF0\x9F\x98\x80"), 18u);
}

// Regression test, bug fixed (text.cpp CodePointCount): text.h says "invalid bytes count one each", and Tokenize()
// counts the overlong pair "\xC0\xB0" as two code points (char_end 2), but CodePointCount uses
// the structural SeqLen only and returns 1. A note containing overlong bytes gets a
// note_chars smaller than its own token offsets.
TEST(CodePointCount, OverlongSequenceCountsLikeTheTokenizer) {
  EXPECT_EQ(CodePointCount("\xC0\xB0"), 2u);
  EXPECT_EQ(CodePointCount("\xE0\x80\xB0"), 3u);
  auto toks = Tokenize("\xC0\xB0");
  ASSERT_EQ(toks.size(), 1u);
  EXPECT_EQ(CodePointCount("\xC0\xB0"), toks[0].char_end);
}

// ---------------------------------------------------------------- Analyze: sentences

class SentencesTest : public ::testing::Test {
 protected:
  TokenizedText Run(std::string_view text) { return Analyze(text, DefaultRules().assertion.abbreviations); }
};

TEST_F(SentencesTest, PeriodQuestionAndExclamationEndSentences) {
  auto tt = Run("No fever. Cough? Yes! Done");
  // No fever . | Cough ? | Yes ! | Done
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 3, 5, 7}));
  EXPECT_EQ(tt.sentence_end, (std::vector<uint32_t>{3, 5, 7, 8}));
  EXPECT_EQ(tt.sentence_of, (std::vector<uint32_t>{0, 0, 0, 1, 1, 2, 2, 3}));
}

TEST_F(SentencesTest, EmptyTextHasOneEmptySentence) {
  auto tt = Run("");
  EXPECT_TRUE(tt.tokens.empty());
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0}));
  EXPECT_EQ(tt.sentence_end, (std::vector<uint32_t>{0}));
}

TEST_F(SentencesTest, AbbreviationBeforeLowerCaseWordDoesNotBreak) {
  // "tab" is in assertion.yaml abbreviations; the next word is lower case.
  auto tt = Run("Take 1 tab. daily with food.");
  EXPECT_EQ(tt.sentence_begin.size(), 1u);
  EXPECT_EQ(tt.sentence_end, (std::vector<uint32_t>{8}));
}

TEST_F(SentencesTest, AbbreviationBeforeCapitalisedWordBreaks) {
  // The rule is "when the next word is lower-case": "Dr. Smith" therefore breaks.
  auto tt = Run("Seen by Dr. Smith today.");
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 4}));
}

TEST_F(SentencesTest, NonAbbreviationBreaksEvenBeforeLowerCase) {
  auto tt = Run("No fever. cough present.");
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 3}));
}

TEST_F(SentencesTest, AbbreviationAtEndOfLineBreaks) {
  // the abbreviation exception never crosses a line break
  auto tt = Run("Seen with pt.\nreports fever");
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 4}));
}

TEST_F(SentencesTest, HardWrappedLinesContinue) {
  auto tt = Run("Patient reports\nheadache since Monday.");
  EXPECT_EQ(tt.sentence_begin.size(), 1u);
  auto comma = Run("Reports headache,\nnausea and fatigue");
  EXPECT_EQ(comma.sentence_begin.size(), 1u);
}

TEST_F(SentencesTest, NewLineStartingUpperCaseBreaks) {
  auto tt = Run("Reports headache\nNo fever");
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 2}));
}

TEST_F(SentencesTest, BlankLineBreaksEvenInLowerCase) {
  auto tt = Run("reports headache\n\nnausea");
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 2}));
}

TEST_F(SentencesTest, HeadingColonLineBreaks) {
  auto tt = Run("Meds:\nsertraline 50 mg");
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 2}));
}

TEST_F(SentencesTest, BulletsBreak) {
  auto tt = Run("Meds: \xE2\x80\xA2 sertraline \xE2\x80\xA2 metformin");
  // Meds : | * sertraline | * metformin
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 2, 4}));
  auto star = Run("* sertraline * metformin");
  EXPECT_EQ(star.sentence_begin, (std::vector<uint32_t>{0, 2}));
}

TEST_F(SentencesTest, HyphenBulletsOnNewLinesBreak) {
  auto tt = Run("- sertraline\n- metformin");
  EXPECT_EQ(tt.sentence_begin, (std::vector<uint32_t>{0, 2}));
}

// ---------------------------------------------------------------- helpers

TEST(Normalize, NormalizePhrase) {
  EXPECT_EQ(NormalizePhrase("Alka-Seltzer"), "alka seltzer");
  EXPECT_EQ(NormalizePhrase("q8h"), "q 8 h");
  EXPECT_EQ(NormalizePhrase("b.i.d."), "bid");
  EXPECT_EQ(NormalizePhrase("h/o"), "h / o");
  EXPECT_EQ(NormalizePhrase("  Shortness   of\tBreath "), "shortness of breath");
  EXPECT_EQ(NormalizePhrase(""), "");
}

TEST(Normalize, PhraseWords) {
  EXPECT_EQ(PhraseWords("self-harm"), (Strings{"self", "harm"}));
  EXPECT_EQ(PhraseWords("Tylenol #3"), (Strings{"tylenol", "#", "3"}));
}

TEST(Normalize, Lower) {
  EXPECT_EQ(Lower("SerTRALine"), "sertraline");
  EXPECT_EQ(Lower("\xC3\x9C" "BER"), "\xC3\x9C" "ber");  // ASCII-only lower-casing
}

TEST(Normalize, Cat) {
  EXPECT_EQ(Cat({}), "");
  EXPECT_EQ(Cat({"expected ", std::string("50 mg"), "", ", found ", std::string_view("5 mg")}), "expected 50 mg, found 5 mg");
  const std::string longer(40, 'x');  // past the short-string buffer: one allocation of the whole
  EXPECT_EQ(Cat({longer, "|", longer}), longer + "|" + longer);
  EXPECT_EQ(Cat({longer, "|", longer}).capacity(), 81u);
}

TEST(Normalize, FoldPlural) {
  EXPECT_EQ(FoldPlural("palpitations"), "palpitation");
  EXPECT_EQ(FoldPlural("pills"), "pill");
  EXPECT_EQ(FoldPlural("virus"), "virus");      // -us
  EXPECT_EQ(FoldPlural("abscess"), "abscess");  // -ss
  // -es after a sibilant folds to the singular both sides use ("passive death wishes" is the
  // keyword "passive death wish"); -aches is -ache + s.
  EXPECT_EQ(FoldPlural("wishes"), "wish");
  EXPECT_EQ(FoldPlural("rashes"), "rash");
  EXPECT_EQ(FoldPlural("patches"), "patch");
  EXPECT_EQ(FoldPlural("masses"), "mass");
  EXPECT_EQ(FoldPlural("boxes"), "box");
  EXPECT_EQ(FoldPlural("headaches"), "headache");
  EXPECT_EQ(FoldPlural("headache"), "headache");
  EXPECT_EQ(FoldPlural("arthritis"), "arthritis");  // -is
  EXPECT_EQ(FoldPlural("fits"), "fits");        // four letters or fewer stay
  EXPECT_EQ(FoldPlural("was"), "was");
  EXPECT_EQ(FoldPlural("rash"), "rash");
}

TEST(Normalize, SplitKeepsEmptyFields) {
  auto parts = Split("a,,b", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "a");
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(parts[2], "b");
  EXPECT_EQ(Split("", ',').size(), 1u);
  EXPECT_EQ(Split("a,", ',').size(), 2u);
}

TEST(Normalize, Trim) {
  EXPECT_EQ(Trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Trim("x"), "x");
}

TEST(Numbers, Round4) {
  EXPECT_DOUBLE_EQ(Round4(2.0 / 3.0), 0.6667);
  EXPECT_DOUBLE_EQ(Round4(1.0 / 3.0), 0.3333);
  EXPECT_DOUBLE_EQ(Round4(1.0 / 7.0), 0.1429);
  EXPECT_DOUBLE_EQ(Round4(0.85), 0.85);
  EXPECT_DOUBLE_EQ(Round4(1.0), 1.0);
  EXPECT_DOUBLE_EQ(Round4(std::numeric_limits<double>::quiet_NaN()), 0.0);
  EXPECT_DOUBLE_EQ(Round4(std::numeric_limits<double>::infinity()), 0.0);
}

TEST(Numbers, FormatNumberAsCliniciansWrite) {
  EXPECT_EQ(FormatNumber(50), "50");
  EXPECT_EQ(FormatNumber(0.5), "0.5");
  EXPECT_EQ(FormatNumber(1000), "1000");
  EXPECT_EQ(FormatNumber(0.075), "0.075");
  EXPECT_EQ(FormatNumber(400), "400");
}

// Regression test, bug fixed (text.cpp FormatNumber): "%.6g" switches to exponent notation from 1,000,000, so
// penicillin G benzathine "2,400,000 units" is reported as "2.4e+06 unit" in checks and
// dose texts. text.h promises numbers "the way clinicians write it".
TEST(Numbers, FormatNumberLargeDosesWithoutExponent) {
  EXPECT_EQ(FormatNumber(2400000), "2400000");
  EXPECT_EQ(FormatNumber(1000000), "1000000");
}

// Whole numbers are written from their integer, the rest by printf: both as "%.0f" / "%.6g" write them.
TEST(Numbers, FormatNumberWholeAndSigned) {
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(-0.0), "-0");
  EXPECT_EQ(FormatNumber(-3), "-3");
  EXPECT_EQ(FormatNumber(-2.5), "-2.5");
  EXPECT_EQ(FormatNumber(999999999999999.0), "999999999999999");
  EXPECT_EQ(FormatNumber(-999999999999999.0), "-999999999999999");
  EXPECT_EQ(FormatNumber(1e15), "1e+15");
  EXPECT_EQ(FormatNumber(1234567.5), "1.23457e+06");
  EXPECT_EQ(FormatNumber(std::numeric_limits<double>::infinity()), "inf");
}

// A Token is views and numbers: the tokenizer and the sig-word repair copy it as plain bytes.
static_assert(std::is_trivially_copyable_v<Token>);

// Tokens view their text, so a string about to be destroyed is refused at compile time; a
// string that stays, a view and a literal are taken.
template <class S>
concept Tokenizable = requires(S&& s) { Tokenize(std::forward<S>(s)); };
static_assert(!Tokenizable<std::string>);
static_assert(!Tokenizable<const std::string>);
static_assert(Tokenizable<std::string&>);
static_assert(Tokenizable<const std::string&>);
static_assert(Tokenizable<std::string_view>);
static_assert(Tokenizable<const char (&)[4]>);

// Where a token's words live: the text's own bytes when it wrote the word as its norm, else the
// list's arena, which moves with the list and is shared by copies of an analysed text.
TEST(Tokenize, WordsLiveInTheTextOrInTheArenaThatMovesWithTheList) {
  const std::string text = "Metformin 1,000 mg b.i.d. \xE2\x80\x9CIt\xE2\x80\x99s fine\xE2\x80\x9D, tablets";
  TokenList first = Tokenize(text);
  TokenList list = std::move(first);
  first = Tokenize("overwrites whatever the moved-from list held");
  EXPECT_EQ(Norms(list), (Strings{"metformin", "1000", "mg", "bid", "\"", "it's", "fine", "\"", ",", "tablets"}));
  auto in_text = [&](std::string_view w) { return w.data() >= text.data() && w.data() < text.data() + text.size(); };
  EXPECT_FALSE(in_text(list[0].norm));  // lower-cased
  EXPECT_FALSE(in_text(list[1].norm));  // without its comma
  EXPECT_TRUE(in_text(list[2].norm));
  EXPECT_FALSE(in_text(list[3].norm));  // joined from "b.i.d."
  EXPECT_FALSE(in_text(list[4].norm));  // a curly quote made straight: a static string
  EXPECT_FALSE(in_text(list[5].norm));  // a curly apostrophe made straight
  EXPECT_TRUE(in_text(list[6].norm));
  EXPECT_EQ(list[9].folded, "tablet");
  EXPECT_FALSE(in_text(list[9].folded));
  EXPECT_EQ(list[6].folded.data(), list[6].norm.data());  // a word that folds to itself is not copied
  for (const Token& t : list) {
    EXPECT_EQ(t.norm_hash, HashWord(t.norm)) << t.norm;
    EXPECT_EQ(t.folded_hash, HashWord(t.folded)) << t.folded;
  }
  EXPECT_EQ(list[0].number, 0);
  EXPECT_EQ(list[1].number, 1000);
}

// The process remembers folded words: a text read again (its words now remembered), and a word
// longer than the memo keeps (folded each time), fold as FoldWord does.
TEST(Tokenize, RememberedFoldsAreFoldWordsAnswers) {
  const std::string longest(70, 'x');
  const std::string text = "Tablets capsules inhalers " + longest + "es pxtablets " + longest + "es tablets";
  for (int pass = 0; pass < 3; ++pass) {
    TokenList list = Tokenize(text);
    ASSERT_EQ(list.size(), 7u);
    for (const Token& t : list) {
      EXPECT_EQ(t.folded, FoldWord(t.norm)) << t.norm;
      EXPECT_EQ(t.folded_hash, HashWord(t.folded)) << t.norm;
    }
    EXPECT_EQ(list[0].folded, "tablet");
    EXPECT_EQ(list[3].folded, longest);  // 72 bytes: not remembered, folded again
    EXPECT_EQ(list[5].folded, longest);
  }
}

TEST(Analyze, ACopyOfAnAnalysedTextSharesItsWords) {
  const std::string text = "Lisinopril 10 MG daily.";
  std::optional<TokenizedText> original = Analyze(text, {});
  TokenizedText copy = *original;
  original.reset();
  Analyze("Another Text In Capitals To Reuse The Freed Memory", {});
  EXPECT_EQ(Norms(copy.tokens), (Strings{"lisinopril", "10", "mg", "daily", "."}));
}

// SameWord is ==, whatever the length and wherever two words differ.
TEST(SameWord, IsEqualityForEveryLengthAndPosition) {
  int differing = 0;
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'a');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + (i * 7) % 26);
    const std::string same = a;
    EXPECT_TRUE(SameWord(a, same)) << n;
    EXPECT_FALSE(SameWord(a, a + "x")) << n;
    EXPECT_FALSE(SameWord(a + "x", a)) << n;
    for (size_t i = 0; i < n; ++i) {
      std::string b = a;
      b[i] = static_cast<char>(b[i] ^ 0x20);
      EXPECT_FALSE(SameWord(a, b)) << n << " " << i;
      std::string_view x = std::string_view(a).substr(0, i), y = std::string_view(same).substr(n - i, i);
      EXPECT_EQ(SameWord(x, y), x == y) << n << " " << i;
      ++differing;
    }
  }
  EXPECT_EQ(differing, 820);
}

// With a vocabulary, Analyze says of each word whether the vocabulary holds it: the same answer
// when the words are remembered from an earlier text, another vocabulary's own answers, and a
// new answer once a vocabulary gains the word. Without one, nothing is said.
TEST(Analyze, SaysWhetherEachWordIsInTheVocabulary) {
  WordSet english, other;
  for (const char* w : {"patient", "takes", "tablets"}) english.insert(w);
  other.insert("zyntrafex");
  const std::string text = "Patient takes Zyntrafex 20 mg tablets.";
  auto known = [](const TokenizedText& tt) {
    std::string out;
    for (const Token& t : tt.tokens)
      out += t.known == Token::Known::kYes ? 'y' : t.known == Token::Known::kNo ? 'n' : '-';
    return out;
  };
  EXPECT_EQ(known(Analyze(text, {}, &english)), "yyn-ny-");
  EXPECT_EQ(known(Analyze(text, {}, &english)), "yyn-ny-");  // remembered
  EXPECT_EQ(known(Analyze(text, {}, &other)), "nny-nn-");
  EXPECT_EQ(known(Analyze(text, {}, &english)), "yyn-ny-");
  EXPECT_EQ(known(Analyze(text, {})), "-------");
  english.insert("zyntrafex");
  EXPECT_EQ(known(Analyze(text, {}, &english)), "yyy-ny-");
}

// WordSet holds exactly the words inserted, whatever their length: those of up to 15 bytes inside
// their slots, longer ones outside; a word one byte different, one byte longer or shorter, or
// empty is no member; growing the table keeps every member.
TEST(WordSet, HoldsExactlyTheWordsInsertedForEveryLengthAndPosition) {
  WordSet set;
  std::vector<std::string> members;
  for (size_t n = 1; n <= 40; ++n) {
    std::string w(n, 'a');
    for (size_t i = 0; i < n; ++i) w[i] = static_cast<char>('a' + (i * 7 + n) % 26);
    members.push_back(w);
    set.insert(w);
  }
  set.insert(members[3]);  // again: still one member
  set.insert("");          // never a member
  EXPECT_EQ(set.size(), 40u);
  int tried = 0;
  for (const std::string& w : members) {
    EXPECT_TRUE(set.contains(w)) << w;
    EXPECT_TRUE(set.contains(w, HashWord(w))) << w;
    EXPECT_FALSE(set.contains(w + "x")) << w;
    EXPECT_FALSE(set.contains(w.substr(0, w.size() - 1) + "#")) << w;
    for (size_t i = 0; i < w.size(); ++i) {
      std::string other = w;
      other[i] = static_cast<char>(other[i] ^ 0x20);  // upper case: no member is
      EXPECT_FALSE(set.contains(other)) << w << " " << i;
      ++tried;
    }
  }
  EXPECT_EQ(tried, 820);
  EXPECT_FALSE(set.contains(""));
  // a NUL is a byte like any other, not the padding after a word
  EXPECT_FALSE(set.contains(members[0] + std::string(1, '\0')));
  set.insert(std::string_view("q\0", 2));
  EXPECT_TRUE(set.contains(std::string_view("q\0", 2)));
  EXPECT_FALSE(set.contains("q"));
  set.insert("q");
  for (int i = 0; i < 5000; ++i) set.insert("word" + std::to_string(i) + std::string(i % 20, 'z'));
  EXPECT_EQ(set.size(), 5042u);
  for (int i = 0; i < 5000; ++i) EXPECT_TRUE(set.contains("word" + std::to_string(i) + std::string(i % 20, 'z'))) << i;
  for (const std::string& w : members) EXPECT_TRUE(set.contains(w)) << w;
  EXPECT_FALSE(set.contains("word5000"));
}

// WordBits holds every word added, and few others: 15,000 words in 2^18 bits, two each, answer
// "maybe" for about (1 - e^(-30000/262144))^2 = 1.2 % of words never added.
TEST(WordBits, HoldsEveryWordAddedAndFewOthers) {
  WordBits bits;
  auto word = [](int i, const char* tag) { return std::string(tag) + std::to_string(i * 7919 % 100003); };
  for (int i = 0; i < 15000; ++i) bits.Add(HashWord(word(i, "in")));
  int held = 0, others = 0;
  for (int i = 0; i < 15000; ++i) held += bits.MayHold(HashWord(word(i, "in")));
  for (int i = 0; i < 15000; ++i) others += bits.MayHold(HashWord(word(i, "out")));
  EXPECT_EQ(held, 15000);
  EXPECT_LT(others, 300);  // 2 %
  EXPECT_GT(others, 0);    // a filter, not a table
  EXPECT_FALSE(WordBits().MayHold(HashWord("sertraline")));
}

}  // namespace
}  // namespace scribe
