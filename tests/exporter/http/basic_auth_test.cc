// Tests for basic auth: base64, the Authorization header parser, bcrypt, the cache
// of verified credentials, the bcrypt gate, the dummy hash for unknown users and the
// 72-byte limit (checked by counting and blocking verifier calls, not by time).
#include "exporter/http/basic_auth.h"

#include <crypt.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/http_client.h"
#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::BasicAuthorization;

TEST(DecodeBase64, DecodesPaddedInput) {
  std::string out;
  ASSERT_TRUE(DecodeBase64("YWxpY2U6d29uZGVybGFuZA==", &out));
  EXPECT_EQ(out, "alice:wonderland");
  ASSERT_TRUE(DecodeBase64("YWJj", &out));
  EXPECT_EQ(out, "abc");
  ASSERT_TRUE(DecodeBase64("", &out));
  EXPECT_EQ(out, "");
}

TEST(DecodeBase64, RefusesMalformedInput) {
  std::string out;
  for (const char* bad : {"YWJ", "YW==Jj", "Y===", "!!!!", "YWJj\n", "YW J"}) {
    EXPECT_FALSE(DecodeBase64(bad, &out)) << bad;
  }
}

TEST(ParseBasicAuthorization, SplitsAtTheFirstColon) {
  std::string user, password;
  ASSERT_TRUE(
      ParseBasicAuthorization(BasicAuthorization("bob", "b:u:i").c_str(), &user, &password));
  EXPECT_EQ(user, "bob");
  EXPECT_EQ(password, "b:u:i");
  std::string lower = BasicAuthorization("alice", "");
  lower.replace(0, 5, "bASIC");
  ASSERT_TRUE(ParseBasicAuthorization(lower.c_str(), &user, &password));
  EXPECT_EQ(user, "alice");
  EXPECT_EQ(password, "");
}

TEST(ParseBasicAuthorization, RefusesOtherValues) {
  std::string user, password;
  EXPECT_FALSE(ParseBasicAuthorization(nullptr, &user, &password));
  for (const char* bad : {"Bearer abc", "Basic", "Basic !!!!", "Basic YWxpY2U=", "basic",
                          "Basic YQBiOmM=" /* "a\0b:c" */}) {
    EXPECT_FALSE(ParseBasicAuthorization(bad, &user, &password)) << bad;
  }
}

// A bcrypt hash of `password` made with libcrypt.
std::string Bcrypt(const std::string& password, int cost = 4) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", cost, nullptr, 0, salt, sizeof(salt)) == nullptr) return "";
  auto data = std::make_unique<crypt_data>();
  const char* computed = crypt_rn(password.c_str(), salt, data.get(), sizeof(*data));
  return computed == nullptr ? "" : computed;
}

TEST(BcryptMatches, MatchesOnlyTheHashedPassword) {
  const std::string hash = Bcrypt("secret");
  ASSERT_EQ(hash.size(), 60u);
  EXPECT_TRUE(BcryptMatches("secret", hash));
  EXPECT_FALSE(BcryptMatches("Secret", hash));
  EXPECT_FALSE(BcryptMatches("secret", hash.substr(0, 59)));
  EXPECT_FALSE(BcryptMatches("secret", "not a hash"));
}

TEST(BcryptCost, ReadsTheCostOfEachVariant) {
  EXPECT_EQ(BcryptCost("$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"), 10);
  EXPECT_EQ(BcryptCost("$2a$04$x"), 4);
  EXPECT_EQ(BcryptCost("$2b$31$x"), 31);
  for (const char* bad :
       {"", "$2y$1", "$2x$10$", "$1$10$", "$2y$03$", "$2y$32$", "$2y$1a$", "hash-of-x"}) {
    EXPECT_EQ(BcryptCost(bad), -1) << bad;
  }
}

TEST(UnmatchableBcryptHash, HasTheCostAndMatchesNothing) {
  const std::string hash = UnmatchableBcryptHash(5);
  ASSERT_EQ(hash.size(), 60u) << hash;
  EXPECT_EQ(BcryptCost(hash), 5);
  for (const char* password : {"", "secret", "................................"}) {
    EXPECT_FALSE(BcryptMatches(password, hash)) << password;
  }
  EXPECT_NE(UnmatchableBcryptHash(5), hash);  // a fresh random salt each time
}

TEST(DistinctBcryptCosts, SaysWhenUsersHaveDifferentCosts) {
  EXPECT_EQ(DistinctBcryptCosts({{"a", "$2y$10$x"}, {"b", "$2y$10$y"}}), std::vector<int>{10});
  EXPECT_EQ(DistinctBcryptCosts({{"a", "$2y$12$x"}, {"b", "$2a$10$y"}, {"c", "$2b$12$z"}}),
            (std::vector<int>{10, 12}));
  EXPECT_TRUE(DistinctBcryptCosts({}).empty());
}

TEST(VerifiedCredentials, RemembersExactlyWhatWasInserted) {
  VerifiedCredentials cache(8);
  EXPECT_FALSE(cache.Contains("alice", "wonderland"));
  cache.Insert("alice", "wonderland");
  EXPECT_TRUE(cache.Contains("alice", "wonderland"));
  EXPECT_FALSE(cache.Contains("alice", "Wonderland"));
  EXPECT_FALSE(cache.Contains("bob", "wonderland"));
  // The same concatenation split differently is another credential.
  cache.Insert("ab", "c");
  EXPECT_FALSE(cache.Contains("a", "bc"));
  EXPECT_EQ(cache.size(), 2u);
}

TEST(VerifiedCredentials, StaysWithinItsCapacity) {
  VerifiedCredentials cache(3);
  for (int i = 0; i < 10; ++i) {
    cache.Insert("user" + std::to_string(i), "pw");
    EXPECT_LE(cache.size(), 3u);
    EXPECT_TRUE(cache.Contains("user" + std::to_string(i), "pw"));
  }
}

TEST(VerifiedCredentials, CapacityZeroCachesNothing) {
  VerifiedCredentials cache(0);
  cache.Insert("alice", "wonderland");
  EXPECT_FALSE(cache.Contains("alice", "wonderland"));
  EXPECT_EQ(cache.size(), 0u);
}

// A BasicAuth whose verifier compares "hash-of-<password>" and counts its calls.
class BasicAuthTest : public ::testing::Test {
 protected:
  BasicAuthTest()
      : auth_({{"alice", "hash-of-wonderland"}, {"bob", "hash-of-builder"}},
              [this](const std::string& password, const std::string& hash) {
                ++verifier_calls_;
                return hash == "hash-of-" + password;
              }) {}

  bool Check(const std::string& user, const std::string& password) {
    return auth_.Check(BasicAuthorization(user, password).c_str()) == AuthResult::kAllowed;
  }

  int verifier_calls_ = 0;
  BasicAuth auth_;
};

TEST_F(BasicAuthTest, ASuccessfulCheckIsCachedAndNotVerifiedAgain) {
  EXPECT_TRUE(Check("alice", "wonderland"));
  EXPECT_EQ(verifier_calls_, 1);
  EXPECT_TRUE(auth_.cache().Contains("alice", "wonderland"));
  EXPECT_TRUE(Check("alice", "wonderland"));
  EXPECT_TRUE(Check("alice", "wonderland"));
  EXPECT_EQ(verifier_calls_, 1);
  EXPECT_TRUE(Check("bob", "builder"));
  EXPECT_EQ(verifier_calls_, 2);
}

TEST_F(BasicAuthTest, FailuresAreVerifiedEveryTimeAndNeverCached) {
  EXPECT_FALSE(Check("alice", "wrong"));
  EXPECT_FALSE(Check("alice", "wrong"));
  EXPECT_EQ(verifier_calls_, 2);
  EXPECT_EQ(auth_.cache().size(), 0u);
}

TEST_F(BasicAuthTest, UnknownUsersPayTheVerifierAndFail) {
  // "carol" with alice's password matches the hash it is checked against, and
  // still fails: the user does not exist.
  EXPECT_FALSE(Check("carol", "wonderland"));
  EXPECT_EQ(verifier_calls_, 1);
  EXPECT_EQ(auth_.cache().size(), 0u);
}

TEST_F(BasicAuthTest, MalformedHeadersFailWithoutVerifying) {
  EXPECT_EQ(auth_.Check(nullptr), AuthResult::kDenied);
  EXPECT_EQ(auth_.Check("Bearer abc"), AuthResult::kDenied);
  EXPECT_EQ(verifier_calls_, 0);
}

TEST_F(BasicAuthTest, PasswordsOver72BytesAreRefusedWithoutVerifying) {
  EXPECT_FALSE(Check("alice", std::string(73, 'w')));
  EXPECT_EQ(verifier_calls_, 0);
}

// Why a check failed: the `reason` label of the auth failure counter.
TEST_F(BasicAuthTest, EachRefusalSaysWhy) {
  const auto reason = [this](const char* header) {
    AuthFailure failure = AuthFailure::kRateLimited;
    EXPECT_EQ(auth_.Check(header, "192.0.2.1", &failure), AuthResult::kDenied) << header;
    return failure;
  };
  EXPECT_EQ(reason(nullptr), AuthFailure::kBadHeader);
  EXPECT_EQ(reason("Bearer abc"), AuthFailure::kBadHeader);
  EXPECT_EQ(reason("Basic !!!!"), AuthFailure::kBadHeader);
  EXPECT_EQ(reason(BasicAuthorization("alice", "wrong").c_str()), AuthFailure::kBadPassword);
  EXPECT_EQ(reason(BasicAuthorization("alice", std::string(73, 'w')).c_str()),
            AuthFailure::kBadPassword);
  EXPECT_EQ(reason(BasicAuthorization("carol", "wonderland").c_str()), AuthFailure::kUnknownUser);
  EXPECT_EQ(reason(BasicAuthorization("carol", std::string(73, 'w')).c_str()),
            AuthFailure::kUnknownUser);
  // An allowed check leaves it as it was; a null one is fine.
  AuthFailure untouched = AuthFailure::kRateLimited;
  EXPECT_EQ(auth_.Check(BasicAuthorization("bob", "builder").c_str(), "", &untouched),
            AuthResult::kAllowed);
  EXPECT_EQ(untouched, AuthFailure::kRateLimited);
  EXPECT_EQ(auth_.Check(BasicAuthorization("bob", "wrong").c_str(), "", nullptr),
            AuthResult::kDenied);
  EXPECT_STREQ(AuthFailureName(AuthFailure::kUnknownUser), "unknown_user");
}

// With real bcrypt: a password that shares its first 72 bytes with the right one is
// refused, not accepted as bcrypt alone would.
TEST(BasicAuthBcryptTest, SeventyTwoBytesAreTheLimit) {
  const std::string password(72, 'p');
  BasicAuth auth({{"alice", Bcrypt(password)}});
  EXPECT_TRUE(BcryptMatches(password + "extra", Bcrypt(password)));  // what bcrypt does
  EXPECT_EQ(auth.Check(BasicAuthorization("alice", password + "extra").c_str()),
            AuthResult::kDenied);
  EXPECT_EQ(auth.Check(BasicAuthorization("alice", password).c_str()), AuthResult::kAllowed);
}

TEST(BasicAuthDummyHashTest, UnknownUsersAreCheckedAgainstTheHighestCost) {
  std::vector<std::string> hashes_seen;
  const std::string cheap = "$2y$04$" + std::string(53, 'a');
  const std::string dear = "$2y$06$" + std::string(53, 'b');
  BasicAuth auth({{"alice", cheap}, {"bob", dear}, {"carol", cheap}},
                 [&](const std::string&, const std::string& hash) {
                   hashes_seen.push_back(hash);
                   return false;
                 });
  EXPECT_EQ(BcryptCost(auth.dummy_hash()), 6);
  EXPECT_EQ(auth.Check(BasicAuthorization("mallory", "x").c_str()), AuthResult::kDenied);
  EXPECT_EQ(auth.Check(BasicAuthorization("alice", "x").c_str()), AuthResult::kDenied);
  ASSERT_EQ(hashes_seen.size(), 2u);
  EXPECT_EQ(hashes_seen[0], auth.dummy_hash());  // not a user's own hash
  EXPECT_NE(hashes_seen[0], cheap);
  EXPECT_NE(hashes_seen[0], dear);
  EXPECT_EQ(hashes_seen[1], cheap);
}

// Verifier calls wait at a door the test opens; two slots.
class BasicAuthGateTest : public ::testing::Test {
 protected:
  BasicAuthGateTest()
      : auth_(
            {{"alice", "hash-of-wonderland"}},
            [this](const std::string& password, const std::string& hash) {
              std::unique_lock<std::mutex> lock(mutex_);
              ++waiting_;
              changed_.notify_all();
              changed_.wait(lock, [this] { return open_; });
              return hash == "hash-of-" + password;
            },
            BasicAuth::kDefaultCacheCapacity, 2, std::chrono::milliseconds(100)) {}

  ~BasicAuthGateTest() override {
    Open();
    for (std::thread& thread : threads_) thread.join();
  }

  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

  // Starts `count` wrong-password checks and waits until all of them hold a slot.
  void FillTheSlots(int count) {
    for (int i = 0; i < count; ++i) {
      threads_.emplace_back([this] {
        EXPECT_EQ(auth_.Check(BasicAuthorization("alice", "wrong").c_str()), AuthResult::kDenied);
      });
    }
    std::unique_lock<std::mutex> lock(mutex_);
    ASSERT_TRUE(
        changed_.wait_for(lock, std::chrono::seconds(5), [&] { return waiting_ == count; }));
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
  std::vector<std::thread> threads_;
  BasicAuth auth_;
};

TEST_F(BasicAuthGateTest, CachedCredentialsNeverWaitForBcrypt) {
  Open();
  ASSERT_EQ(auth_.Check(BasicAuthorization("alice", "wonderland").c_str()), AuthResult::kAllowed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = false;
    waiting_ = 0;
  }
  FillTheSlots(2);
  const AuthResult cached = testing::CallWithin(std::chrono::seconds(5), "a cached check", [&] {
    return auth_.Check(BasicAuthorization("alice", "wonderland").c_str());
  });
  EXPECT_EQ(cached, AuthResult::kAllowed);
}

TEST_F(BasicAuthGateTest, BeyondTheSlotsChecksWaitBrieflyThenAreTurnedAway) {
  FillTheSlots(2);
  for (const char* user : {"alice", "mallory"}) {  // known or not: the same answer
    const AuthResult result = testing::CallWithin(std::chrono::seconds(5), "a third check", [&] {
      return auth_.Check(BasicAuthorization(user, "guess").c_str());
    });
    EXPECT_EQ(result, AuthResult::kBusy) << user;
  }
  AuthFailure failure = AuthFailure::kBadHeader;
  EXPECT_EQ(auth_.Check(BasicAuthorization("mallory", "guess").c_str(), "", &failure),
            AuthResult::kBusy);
  EXPECT_EQ(failure, AuthFailure::kRateLimited);
  // An uncached right password too: it is not known to be right before bcrypt.
  EXPECT_EQ(auth_.Check(BasicAuthorization("alice", "wonderland").c_str()), AuthResult::kBusy);
  Open();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
  EXPECT_EQ(auth_.Check(BasicAuthorization("alice", "wonderland").c_str()), AuthResult::kAllowed);
}

}  // namespace
}  // namespace scx
