// hash.h — SHA-256 (OpenSSL) for corpus hashes and ETags.
#pragma once

#include <string>
#include <string_view>

namespace scribe {

// Lower-case hex SHA-256 of the bytes.
std::string Sha256Hex(std::string_view bytes);

// Incremental SHA-256 over several pieces.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::string_view bytes);
  std::string HexDigest();

 private:
  void* ctx_;
};

}  // namespace scribe
