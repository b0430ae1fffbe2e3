// HTTP basic authentication against bcrypt hashes, as in Prometheus' web config:
// the Authorization header parser, the bcrypt check, a bounded cache of credentials
// already verified (so that a scrape every few seconds does not pay bcrypt, tens of
// milliseconds or more, each time), and the limits that keep a flood of wrong
// passwords from costing more than a fixed share of the CPU or locking out the
// legitimate user.
//
// Threat model: a client that can reach the port and floods it with Authorization
// headers (wrong passwords, unknown users, over-long passwords), from one address or
// many. What holds:
// - CPU: at most kDefaultBcryptSlots bcrypt checks run at once (BcryptGate); any more
//   wait a little in a bounded queue, then are answered 429.
// - Lock-out: the slots are shared by client address. A freed slot goes to the waiter
//   whose address has had the least bcrypt lately, so an address that has not flooded
//   (a user whose credentials are not cached yet, after a restart) is served next,
//   however many addresses flood. A flood from the user's own address (one NAT) is
//   not told apart.
// - Cached credentials never wait for bcrypt: a scrape every few seconds is unaffected.
// - User enumeration: an unknown user is checked against a hash of the highest cost
//   configured, so it takes as long as the slowest known user. Users with different
//   costs still differ: a user of a lower cost answers faster than an unknown one, so
//   one try tells that name exists (cost 10: 68 ms, cost 12: 268 ms). Give every user
//   the same cost; the exporter warns at start when they differ (DistinctBcryptCosts).
// - Truncation: passwords bcrypt would truncate (over 72 bytes) are refused.
//
// Thread-safety: DecodeBase64, ParseBasicAuthorization, BcryptMatches, BcryptCost and
// DistinctBcryptCosts are pure. VerifiedCredentials and BasicAuth are safe to use
// from several threads at once.
#ifndef SCX_EXPORTER_HTTP_BASIC_AUTH_H_
#define SCX_EXPORTER_HTTP_BASIC_AUTH_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/vocabulary.h"
#include "exporter/http/bcrypt_gate.h"

namespace scx {

// Decodes standard base64 (RFC 4648 alphabet, '=' padding required). False on any
// other input.
bool DecodeBase64(const std::string& in, std::string* out);

// Splits an Authorization header value "Basic <base64 of user:password>" (the
// scheme in any case). The password may contain ':'; neither may contain NUL.
// False for a null header, another scheme or a malformed value.
bool ParseBasicAuthorization(const char* header, std::string* user, std::string* password);

// bcrypt uses the first 72 bytes of a password and ignores the rest; longer
// passwords are refused instead (as Go's bcrypt does), so that two passwords equal
// in their first 72 bytes are not both accepted.
inline constexpr std::size_t kMaxBcryptPasswordBytes = 72;

// True when `password` matches the bcrypt `hash` ($2a$, $2b$ or $2y$), compared in
// constant time.
bool BcryptMatches(const std::string& password, const std::string& hash);

// The cost of a bcrypt hash ("$2y$10$..." -> 10); -1 when `hash` is not one.
int BcryptCost(const std::string& hash);

// The different costs of `users`' hashes, smallest first: more than one means the
// time an answer takes tells some user names from unknown ones.
std::vector<int> DistinctBcryptCosts(const std::map<std::string, std::string>& users);

// A bcrypt hash of cost `cost` that no password matches (a random salt and a
// checksum that bcrypt never produces): what an unknown user is checked against.
// Empty if no random salt could be made.
std::string UnmatchableBcryptHash(int cost);

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

enum class AuthResult {
  kAllowed,
  kDenied,  // no or malformed header, unknown user, wrong or over-long password
  kBusy,    // not cached and no bcrypt slot came free in time: try again later
};

// Why a check did not allow a request (the `reason` label of
// skeleton_coherence_exporter_http_auth_failures_total).
enum class AuthFailure {
  kBadPassword,  // a known user, a wrong (or over-long) password: kDenied
  kUnknownUser,  // a user name not configured: kDenied
  kBadHeader,    // no Authorization header, another scheme or a malformed one: kDenied
  kRateLimited,  // no bcrypt slot came free in time: kBusy
};

inline constexpr Term<AuthFailure> kAuthFailures[] = {
    {AuthFailure::kBadPassword, "bad_password"},
    {AuthFailure::kUnknownUser, "unknown_user"},
    {AuthFailure::kBadHeader, "bad_header"},
    {AuthFailure::kRateLimited, "rate_limited"},
};

inline const char* AuthFailureName(AuthFailure failure) { return NameOf(kAuthFailures, failure); }

// Checks Authorization headers against a set of users.
class BasicAuth {
 public:
  // (password, hash) -> whether they match. BcryptMatches outside tests.
  using Verifier = std::function<bool(const std::string&, const std::string&)>;
  static constexpr std::size_t kDefaultCacheCapacity = 256;
  // Two bcrypt checks at once: a wrong-password flood costs at most two cores' worth
  // of bcrypt, and the other workers stay free for scrapes.
  static constexpr int kDefaultBcryptSlots = 2;
  // Checks waiting for a slot (each holds an HTTP worker while it waits).
  static constexpr std::size_t kMaxBcryptWaiters = 32;
  // Cost of the hash an unknown user is checked against when no user's cost is known.
  static constexpr int kFallbackBcryptCost = 10;

  // `users` maps user names to bcrypt hashes and must not be empty.
  explicit BasicAuth(std::map<std::string, std::string> users, Verifier verify = BcryptMatches,
                     std::size_t cache_capacity = kDefaultCacheCapacity,
                     int bcrypt_slots = kDefaultBcryptSlots,
                     std::chrono::milliseconds max_wait = std::chrono::milliseconds(1000));

  // `authorization` is the Authorization header value, or null. In this order: a
  // malformed header or a password over kMaxBcryptPasswordBytes is denied; cached
  // credentials are allowed without waiting for anything; then a bcrypt slot is
  // taken for `address`, the client's (kBusy when none comes free within max_wait,
  // see BcryptGate) and the verifier called, for an unknown user against a hash of
  // the highest configured cost, so that the response time does not reveal which
  // users exist. Unless allowed, `failure` (may be null) gets why.
  AuthResult Check(const char* authorization, const std::string& address = "",
                   AuthFailure* failure = nullptr);

  const VerifiedCredentials& cache() const { return cache_; }
  // The hash unknown users are checked against.
  const std::string& dummy_hash() const { return dummy_hash_; }

 private:
  const std::map<std::string, std::string> users_;
  const Verifier verify_;
  const std::string dummy_hash_;
  VerifiedCredentials cache_;
  BcryptGate gate_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_BASIC_AUTH_H_
