// HTTP basic authentication against bcrypt hashes, as in Prometheus' web config:
// the Authorization header parser, the bcrypt check, and a bounded cache of
// credentials already verified, so that a scrape every few seconds does not pay
// bcrypt (tens of milliseconds or more) each time.
//
// Thread-safety: DecodeBase64, ParseBasicAuthorization and BcryptMatches are pure.
// VerifiedCredentials and BasicAuth are safe to use from several threads at once.
#ifndef SCX_EXPORTER_BASIC_AUTH_H_
#define SCX_EXPORTER_BASIC_AUTH_H_

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "engine/mutex.h"

namespace scx {

// Decodes standard base64 (RFC 4648 alphabet, '=' padding required). False on any
// other input.
bool DecodeBase64(const std::string& in, std::string* out);

// Splits an Authorization header value "Basic <base64 of user:password>" (the
// scheme in any case). The password may contain ':'; neither may contain NUL.
// False for a null header, another scheme or a malformed value.
bool ParseBasicAuthorization(const char* header, std::string* user, std::string* password);

// True when `password` matches the bcrypt `hash` ($2a$, $2b$ or $2y$), compared in
// constant time.
bool BcryptMatches(const std::string& password, const std::string& hash);

// Credentials that passed verification. Stores only the SHA-256 of a random
// per-process salt and the credentials, never a password. Bounded: inserting into a
// full cache forgets everything first.
class VerifiedCredentials {
 public:
  explicit VerifiedCredentials(std::size_t capacity);

  bool Contains(const std::string& user, const std::string& password) const;
  void Insert(const std::string& user, const std::string& password);
  std::size_t size() const;

 private:
  // Empty when the credentials cannot be keyed safely (no random salt).
  std::string Key(const std::string& user, const std::string& password) const;

  const std::size_t capacity_;
  std::string salt_;  // empty: no random bytes were available, nothing is cached
  mutable Mutex mutex_;
  std::set<std::string> keys_ SCX_GUARDED_BY(mutex_);
};

// Checks Authorization headers against a set of users.
class BasicAuth {
 public:
  // (password, hash) -> whether they match. BcryptMatches outside tests.
  using Verifier = std::function<bool(const std::string&, const std::string&)>;
  static constexpr std::size_t kDefaultCacheCapacity = 256;

  // `users` maps user names to bcrypt hashes and must not be empty.
  explicit BasicAuth(std::map<std::string, std::string> users, Verifier verify = BcryptMatches,
                     std::size_t cache_capacity = kDefaultCacheCapacity);

  // `authorization` is the Authorization header value, or null. Calls the verifier
  // unless the credentials are cached, and for an unknown user too (against some
  // user's hash), so that the response time does not reveal which users exist.
  bool Check(const char* authorization);

  const VerifiedCredentials& cache() const { return cache_; }

 private:
  const std::map<std::string, std::string> users_;
  const Verifier verify_;
  VerifiedCredentials cache_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_BASIC_AUTH_H_
