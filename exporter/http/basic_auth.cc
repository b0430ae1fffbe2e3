// Basic auth: base64, the header parser, bcrypt through libcrypt, the cache of
// verified credentials keyed by a salted SHA-256, and the bcrypt gate.
#include "exporter/http/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <utility>

#include "exporter/http/http_headers.h"

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

int BcryptCost(const std::string& hash) {
  // "$2a$", "$2b$" or "$2y$", then two digits and '$'.
  if (hash.size() < 7 || hash.compare(0, 2, "$2") != 0 ||
      std::string("aby").find(hash[2]) == std::string::npos || hash[3] != '$' || hash[6] != '$' ||
      !std::isdigit(static_cast<unsigned char>(hash[4])) ||
      !std::isdigit(static_cast<unsigned char>(hash[5]))) {
    return -1;
  }
  const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  return cost >= 4 && cost <= 31 ? cost : -1;
}

namespace {

// A random bcrypt setting of `cost` and a checksum bcrypt never produces: its
// 31-character checksum carries 184 bits, so the last character is one of every
// fourth of the alphabet, and '/' is never one.
std::string UnmatchableHashOfCost(int cost) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", cost, nullptr, 0, setting, sizeof(setting)) == nullptr) return "";
  return std::string(setting) + std::string(30, '.') + "/";
}

}  // namespace

std::string UnmatchableBcryptHash(int cost) {
  // Make sure, cheaply (cost 4), that libcrypt computes a full bcrypt for such a hash
  // (the time an unknown user must cost) rather than refusing it at once.
  const std::string probe = UnmatchableHashOfCost(4);
  auto data = std::make_unique<crypt_data>();
  const char* computed = crypt_rn("", probe.c_str(), data.get(), static_cast<int>(sizeof(*data)));
  if (probe.empty() || computed == nullptr ||
      std::string(computed).compare(0, 29, probe, 0, 29) != 0) {
    return "";
  }
  return UnmatchableHashOfCost(cost);
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

std::vector<int> DistinctBcryptCosts(const std::map<std::string, std::string>& users) {
  std::set<int> costs;
  for (const auto& [user, hash] : users) costs.insert(BcryptCost(hash));
  return {costs.begin(), costs.end()};
}

namespace {

// The hash unknown users are checked against: as costly as the costliest user's.
std::string DummyHash(const std::map<std::string, std::string>& users) {
  int cost = -1;
  std::string costliest;
  for (const auto& [user, hash] : users) {
    if (costliest.empty() || BcryptCost(hash) > cost) {
      cost = BcryptCost(hash);
      costliest = hash;
    }
  }
  const std::string dummy = UnmatchableBcryptHash(cost > 0 ? cost : BasicAuth::kFallbackBcryptCost);
  // Without a random salt, a user's own hash costs the same; Check still denies
  // an unknown user whose password happens to match it.
  return dummy.empty() ? costliest : dummy;
}

// Holds a BcryptGate slot taken by Enter until it goes out of scope.
class GateSlot {
 public:
  explicit GateSlot(BcryptGate* gate) : gate_(gate) {}
  ~GateSlot() { gate_->Leave(); }
  GateSlot(const GateSlot&) = delete;
  GateSlot& operator=(const GateSlot&) = delete;

 private:
  BcryptGate* const gate_;
};

}  // namespace

BasicAuth::BasicAuth(std::map<std::string, std::string> users, Verifier verify,
                     std::size_t cache_capacity, int bcrypt_slots,
                     std::chrono::milliseconds max_wait)
    : users_(std::move(users)),
      verify_(std::move(verify)),
      dummy_hash_(DummyHash(users_)),
      cache_(cache_capacity),
      gate_(bcrypt_slots, kMaxBcryptWaiters, max_wait) {}

AuthResult BasicAuth::Check(const char* authorization, const std::string& address,
                            AuthFailure* failure) {
  AuthFailure ignored;
  if (failure == nullptr) failure = &ignored;
  std::string user;
  std::string password;
  if (!ParseBasicAuthorization(authorization, &user, &password)) {
    *failure = AuthFailure::kBadHeader;
    return AuthResult::kDenied;
  }
  const auto it = users_.find(user);
  const bool known = it != users_.end();
  const AuthFailure denied = known ? AuthFailure::kBadPassword : AuthFailure::kUnknownUser;
  if (password.size() > kMaxBcryptPasswordBytes) {
    *failure = denied;
    return AuthResult::kDenied;
  }
  // Before the gate: a scrape with cached credentials never waits behind bcrypt.
  if (cache_.Contains(user, password)) return AuthResult::kAllowed;
  if (!gate_.Enter(address)) {
    *failure = AuthFailure::kRateLimited;
    return AuthResult::kBusy;
  }
  GateSlot slot(&gate_);
  const bool match = verify_(password, known ? it->second : dummy_hash_);
  if (!known || !match) {
    *failure = denied;
    return AuthResult::kDenied;
  }
  cache_.Insert(user, password);
  return AuthResult::kAllowed;
}

}  // namespace scx
