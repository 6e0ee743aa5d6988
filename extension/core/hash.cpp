// hash.cpp — SHA-256 over OpenSSL's EVP interface (see hash.h).
#include "hash.h"

#include <openssl/evp.h>

#include <new>

namespace scribe {

namespace {

// OpenSSL 3 looks the algorithm up in its provider tables (under a lock) on every
// EVP_DigestInit_ex given EVP_sha256(); fetched once, the digest is used as is ("Performance"
// in OpenSSL's crypto(7)). Every submit hashes its note and vendor name.
const EVP_MD* Sha256Md() {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  static const EVP_MD* md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched ? fetched : EVP_sha256();
  }();
  return md;
#else
  return EVP_sha256();
#endif
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), Sha256Md(), nullptr) != 1) throw std::bad_alloc();
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256::Update(std::string_view bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size());
}

std::string Sha256::HexDigest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), digest, &n);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xF];
  }
  return out;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.HexDigest();
}

}  // namespace scribe
