// Basic auth: base64, the header parser, bcrypt through libcrypt, and the cache of
// verified credentials keyed by a salted SHA-256.
#include "exporter/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <strings.h>

#include <memory>
#include <utility>

#include "exporter/http_headers.h"

namespace scx {

namespace {

constexpr std::size_t kSaltBytes = 32;

std::string Sha256(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) return "";
  return std::string(reinterpret_cast<char*>(digest), size);
}

std::string RandomSalt() {
  std::string salt(kSaltBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size())) !=
      1) {
    return "";  // no cache rather than a predictable key
  }
  return salt;
}

}  // namespace

bool DecodeBase64(const std::string& in, std::string* out) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string text = in.substr(0, in.find_last_not_of('=') + 1);
  if (in.size() % 4 != 0 || in.size() - text.size() > 2) return false;
  out->clear();
  unsigned bits = 0;
  int bit_count = 0;
  for (char c : text) {
    const std::size_t value = kAlphabet.find(c);
    if (value == std::string::npos) return false;
    bits = (bits << 6) | static_cast<unsigned>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out->push_back(static_cast<char>((bits >> bit_count) & 0xFF));
    }
  }
  return true;
}

bool ParseBasicAuthorization(const char* header, std::string* user, std::string* password) {
  if (header == nullptr || strncasecmp(header, "Basic ", 6) != 0) return false;
  std::string decoded;
  if (!DecodeBase64(TrimHttpSpace(header + 6), &decoded)) return false;
  const std::size_t colon = decoded.find(':');
  if (colon == std::string::npos || decoded.find('\0') != std::string::npos) return false;
  *user = decoded.substr(0, colon);
  *password = decoded.substr(colon + 1);
  return true;
}

bool BcryptMatches(const std::string& password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();
  const char* computed =
      crypt_rn(password.c_str(), hash.c_str(), data.get(), static_cast<int>(sizeof(*data)));
  return computed != nullptr && std::string(computed).size() == hash.size() &&
         CRYPTO_memcmp(computed, hash.data(), hash.size()) == 0;
}

VerifiedCredentials::VerifiedCredentials(std::size_t capacity)
    : capacity_(capacity), salt_(RandomSalt()) {}

std::string VerifiedCredentials::Key(const std::string& user, const std::string& password) const {
  if (salt_.empty() || capacity_ == 0) return "";
  // The user's length first, so that no two (user, password) pairs share a key.
  return Sha256(salt_ + std::to_string(user.size()) + ":" + user + password);
}

bool VerifiedCredentials::Contains(const std::string& user, const std::string& password) const {
  const std::string key = Key(user, password);
  if (key.empty()) return false;
  MutexLock lock(&mutex_);
  return keys_.count(key) > 0;
}

void VerifiedCredentials::Insert(const std::string& user, const std::string& password) {
  const std::string key = Key(user, password);
  if (key.empty()) return;
  MutexLock lock(&mutex_);
  if (keys_.size() >= capacity_) keys_.clear();
  keys_.insert(key);
}

std::size_t VerifiedCredentials::size() const {
  MutexLock lock(&mutex_);
  return keys_.size();
}

BasicAuth::BasicAuth(std::map<std::string, std::string> users, Verifier verify,
                     std::size_t cache_capacity)
    : users_(std::move(users)), verify_(std::move(verify)), cache_(cache_capacity) {}

bool BasicAuth::Check(const char* authorization) {
  std::string user, password;
  if (!ParseBasicAuthorization(authorization, &user, &password)) return false;
  if (cache_.Contains(user, password)) return true;
  const auto it = users_.find(user);
  const bool known = it != users_.end();
  // An unknown user pays the verifier too, against the first user's hash.
  const bool match = verify_(password, known ? it->second : users_.begin()->second);
  if (!known || !match) return false;
  cache_.Insert(user, password);
  return true;
}

}  // namespace scx
