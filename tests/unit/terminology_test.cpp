// Unit tests for terminology.h: EditDistance, Terminology::Lookup / Approximate / MatchTokens.
// Expected concepts come from corpus/terminology/concepts.tsv and synonyms.tsv; the approximate
// rule from docs/methodology.md §1 ("Drug mentions").
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rules.h"
#include "terminology.h"
#include "text.h"

namespace scribe {
namespace {

const Terminology& T() { return DefaultTerminology(); }

// ---------------------------------------------------------------- EditDistance

TEST(EditDistance, Basics) {
  EXPECT_EQ(EditDistance("abc", "abc", 2), 0);
  EXPECT_EQ(EditDistance("", "", 2), 0);
  EXPECT_EQ(EditDistance("", "abc", 5), 3);
  EXPECT_EQ(EditDistance("abc", "", 5), 3);
  EXPECT_EQ(EditDistance("sertraline", "sertaline", 2), 1);  // deletion
  EXPECT_EQ(EditDistance("metformin", "metformn", 2), 1);
  EXPECT_EQ(EditDistance("lisinopril", "lisinipril", 2), 1);  // substitution
  EXPECT_EQ(EditDistance("kitten", "sitting", 5), 3);
}

TEST(EditDistance, AdjacentTranspositionCostsOne) {
  EXPECT_EQ(EditDistance("abcd", "abdc", 2), 1);
  EXPECT_EQ(EditDistance("sertraline", "sertarline", 2), 1);
  EXPECT_EQ(EditDistance("ab", "ba", 2), 1);
  // optimal string alignment: a transposed pair is not edited again ("ca" -> "abc" is 3, not 2)
  EXPECT_EQ(EditDistance("ca", "abc", 5), 3);
}

TEST(EditDistance, MaxCutoffReturnsMaxPlusOne) {
  EXPECT_EQ(EditDistance("kitten", "sitting", 2), 3);
  EXPECT_EQ(EditDistance("kitten", "sitting", 1), 2);
  EXPECT_EQ(EditDistance("kitten", "sitting", 3), 3);  // exactly at the limit
  EXPECT_EQ(EditDistance("a", "abcd", 1), 2);            // length difference alone exceeds
  EXPECT_EQ(EditDistance("abcdef", "uvwxyz", 2), 3);
  EXPECT_EQ(EditDistance("abc", "abd", 0), 1);
  EXPECT_EQ(EditDistance("abc", "abc", 0), 0);
}

// ---------------------------------------------------------------- Lookup

TEST(Lookup, ExactIngredient) {
  auto m = T().Lookup("sertraline");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kExact);
  EXPECT_EQ(m->distance, 0);
  const Concept& c = T().concept_at(m->concept_id);
  EXPECT_EQ(c.rxcui, "36437");
  EXPECT_EQ(c.tty, "IN");
  EXPECT_EQ(T().IngredientKey(m->concept_id), "36437");
  EXPECT_EQ(T().IngredientNames(m->concept_id), "sertraline");
}

TEST(Lookup, ExactIsCaseInsensitive) {
  auto m = T().Lookup("SERTRALINE");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kExact);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "36437");
}

TEST(Lookup, BrandResolvesToIngredient) {
  auto m = T().Lookup("Zoloft");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kExact);
  const Concept& c = T().concept_at(m->concept_id);
  EXPECT_EQ(c.tty, "BN");
  EXPECT_EQ(c.rxcui, "82728");
  EXPECT_EQ(c.name, "Zoloft");
  EXPECT_EQ(T().IngredientKey(m->concept_id), "36437");
  EXPECT_EQ(T().IngredientNames(m->concept_id), "sertraline");
}

TEST(Lookup, BrandWithoutRxcui) {
  auto m = T().Lookup("Lipitor");
  ASSERT_TRUE(m);
  const Concept& c = T().concept_at(m->concept_id);
  EXPECT_EQ(c.tty, "BN");
  EXPECT_EQ(c.rxcui, "");
  EXPECT_EQ(T().IngredientNames(m->concept_id), "atorvastatin");
}

TEST(Lookup, CombinationBrand) {
  auto m = T().Lookup("Vicodin");
  ASSERT_TRUE(m);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "161+5489");
  EXPECT_EQ(T().IngredientNames(m->concept_id), "acetaminophen / hydrocodone");
}

TEST(Lookup, Synonyms) {
  auto hctz = T().Lookup("HCTZ");
  ASSERT_TRUE(hctz);
  EXPECT_EQ(hctz->kind, MatchKind::kSynonym);
  EXPECT_EQ(T().concept_at(hctz->concept_id).tty, "SY");
  EXPECT_EQ(T().IngredientNames(hctz->concept_id), "hydrochlorothiazide");
  EXPECT_EQ(T().IngredientKey(hctz->concept_id), "5487");

  auto apap = T().Lookup("APAP");
  ASSERT_TRUE(apap);
  EXPECT_EQ(apap->kind, MatchKind::kSynonym);
  EXPECT_EQ(T().IngredientKey(apap->concept_id), "161");

  // "penicillin" has no RxNorm IN: it names the penicillin class (allergen_classes.yaml), not
  // penicillin V; "pen VK" is still penicillin V
  auto pcn = T().Lookup("penicillin");
  ASSERT_TRUE(pcn);
  EXPECT_EQ(pcn->kind, MatchKind::kExact);
  EXPECT_EQ(T().concept_at(pcn->concept_id).tty, "CLASS");
  EXPECT_EQ(T().IngredientKey(pcn->concept_id), "class:penicillins");
  auto vk = T().Lookup("pen VK");
  ASSERT_TRUE(vk);
  EXPECT_EQ(T().IngredientKey(vk->concept_id), "7984");

  // combination synonym, ingredients sorted numerically: amoxicillin 723, clavulanate 48203
  auto ac = T().Lookup("amox-clav");
  ASSERT_TRUE(ac);
  EXPECT_EQ(T().IngredientKey(ac->concept_id), "723+48203");
}

TEST(Lookup, NormalisedDropsSaltFormulationAndStrength) {
  auto m = T().Lookup("Sertraline HCl 50 mg tablet");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kNormalized);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "36437");
  EXPECT_EQ(T().concept_at(m->concept_id).tty, "IN");

  auto er = T().Lookup("metformin ER 500 mg");
  ASSERT_TRUE(er);
  EXPECT_EQ(er->kind, MatchKind::kNormalized);
  EXPECT_EQ(T().IngredientKey(er->concept_id), "6809");
}

TEST(Lookup, RealIngredientWithNoiseWordsMatchesExactlyFirst) {
  // "potassium" and "chloride" are noise words, but the exact name is tried first
  auto m = T().Lookup("potassium chloride");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kExact);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "8591");
}

TEST(Lookup, ApproximateDistanceOne) {
  struct Case { const char* word; const char* key; const char* name; };
  for (const Case& c : {Case{"sertaline", "36437", "sertraline"}, Case{"metformn", "6809", "metformin"},
                        Case{"lisinipril", "29046", "lisinopril"}, Case{"sertarline", "36437", "sertraline"},
                        Case{"atorvastatn", "83367", "atorvastatin"}}) {
    auto m = T().Lookup(c.word);
    ASSERT_TRUE(m) << c.word;
    EXPECT_EQ(m->kind, MatchKind::kApproximate) << c.word;
    EXPECT_EQ(m->distance, 1) << c.word;
    EXPECT_EQ(T().IngredientKey(m->concept_id), c.key) << c.word;
    EXPECT_EQ(T().IngredientNames(m->concept_id), c.name) << c.word;
  }
}

// Answers are remembered under the lower-case word: asked again, in any case, the same answer.
TEST(Lookup, ApproximateAnswersAreRememberedUnderTheLowerCaseWord) {
  for (int round = 0; round < 2; ++round) {
    for (const char* w : {"sertaline", "SERTALINE", "Sertaline"}) {
      auto m = T().Approximate(w);
      ASSERT_TRUE(m) << w << " round " << round;
      EXPECT_EQ(m->kind, MatchKind::kApproximate) << w;
      EXPECT_EQ(m->distance, 1) << w;
      EXPECT_EQ(T().IngredientKey(m->concept_id), "36437") << w;
    }
    for (const char* w : {"sertal1ne", "serta-line", "s\xC3\xA9rtaline", "nertraline", "metfrmn", ""})
      EXPECT_FALSE(T().Approximate(w)) << w << " round " << round;
  }
}

TEST(Lookup, ApproximateDistanceTwoForLongWords) {
  // "atrvastatn" (10 letters) is two deletions from atorvastatin
  auto m = T().Lookup("atrvastatn");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kApproximate);
  EXPECT_EQ(m->distance, 2);
  EXPECT_EQ(T().IngredientNames(m->concept_id), "atorvastatin");
}

TEST(Lookup, ApproximateDistanceTwoRejectedBelowNineLetters) {
  // "metfrmn" (7 letters) is two edits from metformin: only distance 1 is allowed
  EXPECT_FALSE(T().Lookup("metfrmn"));
}

TEST(Lookup, ApproximateNeedsSameFirstLetter) {
  // "nertraline" is one substitution from sertraline, but the first letter differs
  EXPECT_FALSE(T().Lookup("nertraline"));
}

TEST(Lookup, ApproximateNeedsUniqueBestCandidate) {
  // "coxtan" is distance 1 from both Comtan (entacapone) and Cortan (a different ingredient)
  EXPECT_FALSE(T().Lookup("coxtan"));
}

TEST(Lookup, ApproximateWithStrengthStripped) {
  auto m = T().Lookup("sertaline 50 mg");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kApproximate);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "36437");
}

TEST(Lookup, OrdinaryEnglishWordsNeverMatch) {
  for (const char* w : {"reports", "history", "patient", "tablets", "morning", "Reports", "PATIENT"})
    EXPECT_FALSE(T().Lookup(w)) << w;
}

TEST(Lookup, UnknownAndEmpty) {
  EXPECT_FALSE(T().Lookup("Zyntrafex"));
  EXPECT_FALSE(T().Lookup(""));
  EXPECT_FALSE(T().Lookup("   "));
  EXPECT_FALSE(T().Lookup("50 mg"));
  EXPECT_FALSE(T().Lookup("lisinopril sertraline"));  // two names are not one concept
}

// ---------------------------------------------------------------- Approximate

TEST(Approximate, ShortWordsAndNonLettersNeverMatch) {
  EXPECT_FALSE(T().Approximate("zolo"));      // 4 letters: distance 0 allowed
  EXPECT_FALSE(T().Approximate("sert-raline"));
  EXPECT_FALSE(T().Approximate("sertral1ne"));
  EXPECT_FALSE(T().Approximate(""));
}

TEST(Approximate, ExactNameIsNotAnApproximateMatchOfItself) {
  // distance 0 is excluded; sertraline has no other name within distance 2 starting with 's'
  EXPECT_FALSE(T().Approximate("sertraline"));
}

TEST(Approximate, EnglishWordsAreNotFilteredHereButAreInFreeText) {
  // Approximate() itself knows nothing about English; "ability" is one edit from Abilify.
  auto m = T().Approximate("ability");
  ASSERT_TRUE(m);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "89013");  // aripiprazole
  EXPECT_TRUE(T().IsKnownWord("ability"));
  // ...but a note's "ability" is never read as a drug.
  auto toks = Tokenize("ability");
  EXPECT_FALSE(T().MatchTokens(toks, 0, toks.size()));
}

// ---------------------------------------------------------------- MatchTokens

std::optional<TermMatch> MatchText(std::string_view text, size_t k = 0) {
  auto toks = Tokenize(text);
  return T().MatchTokens(toks, k, toks.size());
}

TEST(MatchTokens, LongestNameInFreeText) {
  auto m = MatchText("potassium chloride 20 mEq daily");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->token_count, 2u);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "8591");
}

TEST(MatchTokens, HyphenatedNameSkipsHyphen) {
  auto m = MatchText("amox-clav 875 mg");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->token_count, 3u);  // amox - clav
  EXPECT_EQ(m->kind, MatchKind::kSynonym);
}

TEST(MatchTokens, BrandAndSynonymKinds) {
  auto z = MatchText("Zoloft 50 mg");
  ASSERT_TRUE(z);
  EXPECT_EQ(z->kind, MatchKind::kExact);
  EXPECT_EQ(z->token_count, 1u);
  auto h = MatchText("HCTZ 25 mg");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->kind, MatchKind::kSynonym);
}

TEST(MatchTokens, NotAtNonWordTokens) {
  EXPECT_FALSE(MatchText("50 mg"));
  EXPECT_FALSE(MatchText(", sertraline"));
  auto m = MatchText(", sertraline", 1);
  ASSERT_TRUE(m);
}

TEST(MatchTokens, AmbiguousBrandNeedsADose) {
  // "Today" is a brand made of an English word (ambiguous_brands.txt)
  EXPECT_FALSE(MatchText("Today she feels well"));
  EXPECT_FALSE(MatchText("Today"));
  auto m = MatchText("Today 5 mg");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->token_count, 1u);
}

TEST(MatchTokens, ApproximateForUnknownWords) {
  auto m = MatchText("sertaline 50mg");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kApproximate);
  EXPECT_EQ(m->token_count, 1u);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "36437");
}

TEST(MatchTokens, NoApproximateForAllCapsWords) {
  EXPECT_FALSE(MatchText("SERTALINE"));
}

TEST(MatchTokens, OrdinaryWordsNeverMatch) {
  for (const char* w : {"reports", "history", "patient", "tablets", "morning", "ability", "aspiring", "accolade",
                        "allegro", "ambient"})
    EXPECT_FALSE(MatchText(w)) << w;
}

// Regression test, bug fixed (terminology.cpp kMinApproximateLength = 5): docs/methodology.md says "A single word of
// six or more letters that is not an English or clinical word also matches approximately",
// but words of five letters are approximated too: "Zolft" (5 letters) resolves to Zoloft.
TEST(MatchTokens, FiveLetterWordsAreNotApproximated) {
  EXPECT_FALSE(MatchText("Zolft 50 mg"));
  // six letters still do
  auto m = MatchText("Zoloftt 50 mg");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, MatchKind::kApproximate);
}

// ---------------------------------------------------------------- misc accessors

TEST(TerminologyInfo, VersionsAndSize) {
  EXPECT_EQ(T().version(), "rxnorm-2025-10-06+a-supplement");
  EXPECT_EQ(T().release_date(), "2025-10-06");
  // 11,672 concept rows (all with ingredients) + 122 synonym rows + 52 allergen class names
  // (allergen_classes.yaml: 8 penicillins, 3 cephalosporins, 2 carbapenems, 9 sulfonamides,
  // 11 NSAIDs, 4 fluoroquinolones, 2 macrolides, 2 tetracyclines, 5 opioids, 6 ACE inhibitors)
  EXPECT_EQ(T().size(), 11846u);
}

TEST(TerminologyInfo, IngredientInfo) {
  const IngredientInfo* info = T().Ingredient("36437");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->name, "sertraline");
  EXPECT_EQ(info->dose_forms, (std::vector<std::string>{"Oral Capsule", "Oral Solution", "Oral Tablet"}));
  EXPECT_NE(std::find(info->strengths.begin(), info->strengths.end(), "50 MG"), info->strengths.end());
  EXPECT_EQ(T().Ingredient("0"), nullptr);
}

// IsKnownWord(Token) (inline, by norm_hash) answers as IsKnownWord(norm), with the token's hash
// or without one (a token made outside Tokenize).
TEST(TerminologyInfo, KnownWordsByToken) {
  TokenList toks = Tokenize("Reports HISTORY of sertraline, Zyntrafex 20 mg");
  std::vector<bool> known;
  for (Token& t : toks) {
    known.push_back(T().IsKnownWord(t));
    EXPECT_EQ(T().IsKnownWord(t), T().IsKnownWord(t.norm)) << t.norm;
    t.norm_hash = 0;
    EXPECT_EQ(T().IsKnownWord(t), T().IsKnownWord(t.norm)) << t.norm;
  }
  EXPECT_EQ(known, (std::vector<bool>{true, true, false, false, false, false, false, false}));
}

TEST(TerminologyInfo, KnownWordsAndSubstances) {
  EXPECT_TRUE(T().IsKnownWord("reports"));
  EXPECT_TRUE(T().IsKnownWord("history"));
  EXPECT_FALSE(T().IsKnownWord("sertraline"));
  EXPECT_FALSE(T().IsKnownWord("zyntrafex"));
  EXPECT_TRUE(T().IsNonRxnormSubstance("latex"));
  EXPECT_TRUE(T().IsNonRxnormSubstance("fish oil"));
  EXPECT_FALSE(T().IsNonRxnormSubstance("sertraline"));
}

TEST(TerminologyInfo, MatchKindNames) {
  EXPECT_EQ(MatchKindName(MatchKind::kExact), "exact");
  EXPECT_EQ(MatchKindName(MatchKind::kNormalized), "normalized");
  EXPECT_EQ(MatchKindName(MatchKind::kSynonym), "synonym");
  EXPECT_EQ(MatchKindName(MatchKind::kApproximate), "approximate");
}

// ---------------------------------------------------------------- Load errors

std::string LoadError(std::string concepts, std::string synonyms) {
  try {
    Terminology::Load(concepts, synonyms, "", "", "", "", "", {});
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TerminologyLoad, ErrorsNameFileAndLine) {
  const std::string header = "rxcui\ttty\tname\tingredient_rxcuis\tsource\n";
  EXPECT_EQ(LoadError(header + "1\tIN\tfoo\n", ""), "concepts.tsv:2: expected 5 columns");
  EXPECT_EQ(LoadError(header + "1\tIN\tfoo\t1\tx\n", "synonym\tingredients\tnote\nFOO\tbar\tx\n"),
            "synonyms.tsv:2: unknown ingredient 'bar'");
  EXPECT_EQ(LoadError(header + "1\tIN\tfoo\t1\tx\n", "synonym\tingredients\tnote\nFOO\n"),
            "synonyms.tsv:2: expected 2 columns");
}

TEST(TerminologyLoad, SmallLexicon) {
  const std::string concepts =
      "rxcui\ttty\tname\tingredient_rxcuis\tsource\n"
      "10\tIN\tfoozolin\t10\tx\n"
      "\tBN\tFoozy\t10\ty\n"
      "20\tIN\tbarbamate\t20\tx\n"
      "30\tMIN\tbarbamate / foozolin\t10|20\tx\n";
  Terminology t = Terminology::Load(concepts, "synonym\tingredients\tnote\nFZ\tfoozolin\tabbr\n", "", "", "",
                                    "terminology=test-1\nrxnorm_release=2000-01-01\n", "", {});
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(t.version(), "test-1");
  EXPECT_EQ(t.release_date(), "2000-01-01");
  auto fz = t.Lookup("FZ");
  ASSERT_TRUE(fz);
  EXPECT_EQ(fz->kind, MatchKind::kSynonym);
  EXPECT_EQ(t.IngredientKey(fz->concept_id), "10");
  auto combo = t.Lookup("barbamate / foozolin");
  ASSERT_TRUE(combo);
  EXPECT_EQ(t.IngredientNames(combo->concept_id), "barbamate / foozolin");
  auto approx = t.Lookup("foozolim");
  ASSERT_TRUE(approx);
  EXPECT_EQ(approx->kind, MatchKind::kApproximate);
  EXPECT_EQ(t.concept_at(approx->concept_id).name, "foozolin");
}

// ---------------------------------------------------------------- equivalence classes

std::string KeyOf(std::string_view term) {
  auto m = T().Lookup(term);
  return m ? T().IngredientKey(m->concept_id) : "(none)";
}
std::string NameOf(std::string_view term) {
  auto m = T().Lookup(term);
  return m ? T().IngredientNames(m->concept_id) : "(none)";
}
std::string SaltOf(std::string_view term) {
  auto m = T().Lookup(term);
  return m ? T().SaltOf(m->concept_id) : "(none)";
}

TEST(Equivalents, SaltFormsThatRxNormKeepsApartShareOneKey) {
  EXPECT_EQ(KeyOf("lithium carbonate"), "6448");
  EXPECT_EQ(KeyOf("lithium citrate"), "6448");
  EXPECT_EQ(KeyOf("lithium"), "6448");
  EXPECT_EQ(KeyOf("Lithobid"), "6448");
  EXPECT_EQ(NameOf("lithium carbonate"), "lithium");
  EXPECT_EQ(T().CanonicalIngredient("42351"), "6448");
  EXPECT_EQ(T().CanonicalIngredient("36437"), "36437");
}

TEST(Equivalents, VitaminNames) {
  EXPECT_EQ(KeyOf("vitamin B12"), KeyOf("cyanocobalamin"));
  EXPECT_EQ(NameOf("vitamin B12"), "cyanocobalamin");
  EXPECT_EQ(KeyOf("vitamin B6"), "684879");
  EXPECT_EQ(KeyOf("pyridoxine"), "684879");
  EXPECT_EQ(NameOf("vitamin B6"), "pyridoxine");
  EXPECT_EQ(KeyOf("vitamin D3"), KeyOf("cholecalciferol"));
  EXPECT_EQ(KeyOf("vitamin K"), KeyOf("phytonadione"));
  EXPECT_EQ(KeyOf("vitamin B2"), KeyOf("riboflavin"));
  // different vitamers and enantiomers stay different drugs
  EXPECT_NE(KeyOf("ergocalciferol"), KeyOf("cholecalciferol"));
  EXPECT_NE(KeyOf("hydroxocobalamin"), KeyOf("cyanocobalamin"));
  EXPECT_NE(KeyOf("escitalopram"), KeyOf("citalopram"));
  EXPECT_NE(KeyOf("esomeprazole"), KeyOf("omeprazole"));
}

TEST(Equivalents, SaltReportedBesideTheSharedKey) {
  EXPECT_EQ(KeyOf("metoprolol tartrate"), KeyOf("metoprolol succinate"));
  EXPECT_EQ(SaltOf("metoprolol tartrate"), "tartrate");
  EXPECT_EQ(SaltOf("metoprolol succinate"), "succinate");
  EXPECT_EQ(SaltOf("lithium carbonate"), "carbonate");
  EXPECT_EQ(SaltOf("divalproex sodium"), "divalproex sodium");  // not "valproate" plus a word
  EXPECT_EQ(SaltOf("metoprolol"), "");
  EXPECT_EQ(SaltOf("Zoloft"), "");
  EXPECT_EQ(SaltOf("vitamin B12"), "");  // a vitamin name, not a salt
  EXPECT_EQ(SaltOf("vitamin K"), "");
}

TEST(Equivalents, LoadErrorsNameFileAndLine) {
  Terminology t = Terminology::Load("rxcui\ttty\tname\tingredient_rxcuis\tsource\n10\tIN\tfoozolin\t10\tx\n"
                                    "20\tIN\tfoozolin salt\t20\tx\n", "", "", "", "", "", "", {});
  auto error = [&](std::string_view tsv) {
    try {
      t.LoadEquivalents(tsv);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("# comment\nfoozolin\tbarbamate\tsalt\n"), "equivalents.tsv:2: 'barbamate' is not an ingredient of the terminology");
  EXPECT_EQ(error("nothing\tfoozolin\n"), "equivalents.tsv:1: 'nothing' is not an ingredient of the terminology");
  EXPECT_EQ(error("foozolin\n"), "equivalents.tsv:1: expected canonical name, equivalent name");
  EXPECT_EQ(error("foozolin\tfoozolin salt\tsalt\tsame ion\n"), "(no error)");
  auto m = t.Lookup("foozolin salt");
  ASSERT_TRUE(m);
  EXPECT_EQ(t.IngredientKey(m->concept_id), "10");
  EXPECT_EQ(t.SaltOf(m->concept_id), "salt");
}

// ---------------------------------------------------------------- allergen classes

TEST(AllergenClasses, NamesResolveToTheClassNotAMember) {
  for (const char* name : {"PCN", "penicillin", "penicillins", "PCN class", "penicillin class"}) {
    auto m = T().Lookup(name);
    ASSERT_TRUE(m) << name;
    EXPECT_EQ(T().concept_at(m->concept_id).tty, "CLASS") << name;
    EXPECT_EQ(T().IngredientKey(m->concept_id), "class:penicillins") << name;
    EXPECT_EQ(T().IngredientNames(m->concept_id), "penicillins") << name;
  }
  EXPECT_EQ(KeyOf("sulfa"), "class:sulfonamides");
  EXPECT_EQ(NameOf("sulfa drugs"), "sulfonamide antibiotics");
  EXPECT_EQ(KeyOf("NSAIDs"), "class:nsaids");
  EXPECT_EQ(KeyOf("cephalosporins"), "class:cephalosporins");
  // members keep their own keys
  EXPECT_EQ(KeyOf("penicillin V"), "7984");
  EXPECT_EQ(KeyOf("pen VK"), "7984");
  EXPECT_EQ(KeyOf("amoxicillin"), "723");
}

TEST(AllergenClasses, FreeTextMatchesTheLongestName) {
  auto toks = Tokenize("PCN-class allergy");
  auto m = T().MatchTokens(toks, 0, toks.size());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->token_count, 3u);
  EXPECT_EQ(T().IngredientKey(m->concept_id), "class:penicillins");
}

TEST(AllergenClasses, Membership) {
  const AllergenClass* pcn = T().FindClass("PCN");
  ASSERT_NE(pcn, nullptr);
  EXPECT_EQ(pcn->id, "penicillins");
  EXPECT_EQ(pcn->prescribed_as, "7984");
  EXPECT_EQ(T().FindClass("class:penicillins"), pcn);
  EXPECT_EQ(T().FindClass("penicillins"), pcn);
  EXPECT_EQ(T().FindClass("amoxicillin"), nullptr);
  EXPECT_TRUE(T().ClassCovers("penicillins", "723"));          // amoxicillin
  EXPECT_TRUE(T().ClassCovers("PCN", "723+48203"));            // amoxicillin / clavulanate
  EXPECT_TRUE(T().ClassCovers("penicillin", "7980"));          // penicillin G
  EXPECT_TRUE(T().ClassCovers("penicillins", "class:penicillins"));
  EXPECT_FALSE(T().ClassCovers("penicillins", "class:cephalosporins"));
  EXPECT_FALSE(T().ClassCovers("penicillins", "3640"));        // doxycycline
  EXPECT_TRUE(T().ClassCovers("NSAIDs", "5640"));              // ibuprofen
  EXPECT_TRUE(T().ClassCovers("nsaids", "1191"));              // aspirin
  EXPECT_TRUE(T().ClassCovers("NSAID", "140587"));             // celecoxib
  EXPECT_FALSE(T().ClassCovers("NSAIDs", "161"));              // acetaminophen
  EXPECT_TRUE(T().ClassCovers("sulfa", "10180+10829"));        // Bactrim
  EXPECT_FALSE(T().ClassCovers("sulfa", "4603"));              // furosemide: a non-antibiotic sulfonamide
  EXPECT_FALSE(T().ClassCovers("no such class", "723"));
  EXPECT_EQ(T().ClassesOf("1191"), (std::vector<std::string>{"nsaids"}));
  EXPECT_EQ(T().ClassesOf("3640"), (std::vector<std::string>{"tetracyclines"}));
  EXPECT_EQ(T().ClassesOf("161"), std::vector<std::string>{});
}

TEST(AllergenClasses, EveryClassHasMembersAndNames) {
  ASSERT_EQ(T().classes().size(), 10u);
  for (const AllergenClass& c : T().classes()) {
    EXPECT_FALSE(c.members.empty()) << c.id;
    EXPECT_FALSE(c.names.empty()) << c.id;
    EXPECT_FALSE(c.display.empty()) << c.id;
  }
  const AllergenClass* pcn = T().FindClass("penicillins");
  ASSERT_NE(pcn, nullptr);
  EXPECT_EQ(pcn->members, (std::vector<std::string>{"723", "733", "3356", "7233", "7773", "7980", "7984", "8339"}));
}

TEST(AllergenClasses, LoadErrors) {
  Terminology t = Terminology::Load("rxcui\ttty\tname\tingredient_rxcuis\tsource\n10\tIN\tfoozolin\t10\tx\n", "", "", "",
                                    "", "", "", {});
  auto error = [&](std::string_view yaml, std::string_view tsv) {
    try {
      Terminology copy = Terminology::Load("rxcui\ttty\tname\tingredient_rxcuis\tsource\n10\tIN\tfoozolin\t10\tx\n",
                                           "", "", "", "", "", "", {});
      copy.LoadAllergenClasses(yaml, tsv);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("version: 1\n", ""), "allergen_classes.yaml: missing mapping 'classes'");
  EXPECT_EQ(error("classes: {foos: {names: [foos]}}\n", "bars\t10\n"), "allergen_class_members.tsv:1: unknown class 'bars'");
  EXPECT_EQ(error("classes: {foos: {names: [foos]}}\n", "foos\t99\n"), "allergen_class_members.tsv:1: unknown ingredient 99");
  EXPECT_EQ(error("classes: {foos: {names: [foozolin]}}\n", "foos\t10\n"),
            "allergen_classes.yaml: foos: 'foozolin' is already a drug name");
  EXPECT_EQ(error("classes: {foos: {names: [foos], prescribed_as: barbamate}}\n", ""),
            "allergen_classes.yaml: foos: prescribed_as 'barbamate' is not an ingredient");
  t.LoadAllergenClasses("classes: {foos: {display: the foos, names: [foos, FZS]}}\n", "class\tingredient_rxcui\nfoos\t10\n");
  EXPECT_TRUE(t.ClassCovers("FZS", "10"));
  auto m = t.Lookup("foos");
  ASSERT_TRUE(m);
  EXPECT_EQ(t.IngredientNames(m->concept_id), "the foos");
  EXPECT_EQ(t.size(), 3u);
}

}  // namespace
}  // namespace scribe
