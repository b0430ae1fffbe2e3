// SHA-256 and base64 from OpenSSL, which the HTTP layer links for TLS.
#include "exporter/http/inline_source_hash.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

namespace scx {

std::string InlineSourceHash(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  unsigned char encoded[4 * ((SHA256_DIGEST_LENGTH + 2) / 3) + 1];
  const int length = EVP_EncodeBlock(encoded, digest, SHA256_DIGEST_LENGTH);
  return "'sha256-" + std::string(reinterpret_cast<const char*>(encoded), length) + "'";
}

}  // namespace scx
