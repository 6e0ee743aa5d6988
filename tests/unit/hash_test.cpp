// Unit tests for hash.h: SHA-256 against the FIPS 180-2 test vectors.
#include <gtest/gtest.h>

#include <string>

#include "hash.h"

namespace scribe {
namespace {

TEST(Sha256Hex, KnownVectors) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Hex, MillionA) {
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Hex, BinaryBytesIncludingNul) {
  EXPECT_EQ(Sha256Hex(std::string("\0", 1)), "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
  EXPECT_NE(Sha256Hex(std::string("\0", 1)), Sha256Hex(""));
}

TEST(Sha256Hex, LowerCaseHexOf64Characters) {
  std::string h = Sha256Hex("scribe-trials");
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Sha256, IncrementalEqualsOneShot) {
  Sha256 h;
  h.Update("a");
  h.Update("");
  h.Update("bc");
  EXPECT_EQ(h.HexDigest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, EmptyIncremental) {
  Sha256 h;
  EXPECT_EQ(h.HexDigest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, ManyPieces) {
  Sha256 h;
  for (int i = 0; i < 1000; ++i) h.Update(std::string(1000, 'a'));
  EXPECT_EQ(h.HexDigest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace scribe
