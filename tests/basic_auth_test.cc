// Tests for basic auth: base64, the Authorization header parser, bcrypt, and the
// cache of verified credentials (checked by counting verifier calls, not by time).
#include "exporter/basic_auth.h"

#include <crypt.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/http_client.h"

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

TEST(BcryptMatches, MatchesOnlyTheHashedPassword) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  ASSERT_NE(crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof(salt)), nullptr);
  auto data = std::make_unique<crypt_data>();
  const char* computed = crypt_rn("secret", salt, data.get(), sizeof(*data));
  ASSERT_NE(computed, nullptr);
  const std::string hash = computed;
  EXPECT_TRUE(BcryptMatches("secret", hash));
  EXPECT_FALSE(BcryptMatches("Secret", hash));
  EXPECT_FALSE(BcryptMatches("secret", hash.substr(0, 59)));
  EXPECT_FALSE(BcryptMatches("secret", "not a hash"));
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
    return auth_.Check(BasicAuthorization(user, password).c_str());
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
  EXPECT_FALSE(auth_.Check(nullptr));
  EXPECT_FALSE(auth_.Check("Bearer abc"));
  EXPECT_EQ(verifier_calls_, 0);
}

}  // namespace
}  // namespace scx
