// Tests for the --web.config.file parser.
#include "exporter/http/web_config.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace scx {
namespace {

using testing::TempDir;
using testing::WriteFile;

// A syntactically valid bcrypt hash (cost 10).
const char kHash[] = "$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze";

class WebConfigTest : public ::testing::Test {
 protected:
  // Writes `yaml` to web.yml in a fresh directory and loads it.
  bool Load(const std::string& yaml) {
    path_ = dir_.Join("web.yml");
    WriteFile(path_, yaml);
    return LoadWebConfig(path_, &config_, &error_);
  }

  TempDir dir_;
  std::string path_;
  WebConfig config_;
  std::string error_;
};

TEST_F(WebConfigTest, FullConfig) {
  ASSERT_TRUE(Load(std::string("tls_server_config:\n"
                               "  cert_file: tls/server.crt\n"
                               "  key_file: /etc/exporter/server.key\n"
                               "  client_auth_type: NoClientCert\n"
                               "  min_version: TLS13\n"
                               "basic_auth_users:\n"
                               "  alice: ") +
                   kHash + "\n"))
      << error_;
  EXPECT_TRUE(config_.tls_enabled());
  EXPECT_EQ(config_.cert_file, dir_.Join("tls/server.crt"));  // relative to the file
  EXPECT_EQ(config_.key_file, "/etc/exporter/server.key");
  EXPECT_EQ(config_.min_version, TlsVersion::kTls13);
  EXPECT_EQ(config_.max_version, TlsVersion::kTls13);
  ASSERT_EQ(config_.basic_auth_users.size(), 1u);
  EXPECT_EQ(config_.basic_auth_users.at("alice"), kHash);
}

TEST_F(WebConfigTest, EmptyFileMeansPlainHttpWithoutAuth) {
  ASSERT_TRUE(Load("")) << error_;
  EXPECT_FALSE(config_.tls_enabled());
  EXPECT_TRUE(config_.basic_auth_users.empty());
  EXPECT_EQ(config_.min_version, TlsVersion::kTls12);
}

TEST_F(WebConfigTest, AuthWithoutTls) {
  ASSERT_TRUE(Load(std::string("basic_auth_users:\n  bob: ") + kHash + "\n")) << error_;
  EXPECT_FALSE(config_.tls_enabled());
  EXPECT_EQ(config_.basic_auth_users.count("bob"), 1u);
}

TEST_F(WebConfigTest, UnknownTopLevelKeyNamesFileLineAndKey) {
  EXPECT_FALSE(Load("basic_auth_users: {}\ntls_config:\n  cert_file: a\n"));
  EXPECT_EQ(error_, path_ + ":2: key 'tls_config': unknown key");
}

// yaml-cpp keeps both pairs of a key written twice, and a lookup finds the first: a
// second tls_server_config or cert_file would be ignored without a word.
TEST_F(WebConfigTest, DuplicateKeysNameFileLineAndKey) {
  EXPECT_FALSE(
      Load("tls_server_config:\n  cert_file: a\n  key_file: b\n"
           "tls_server_config:\n  cert_file: c\n  key_file: d\n"));
  EXPECT_EQ(error_, path_ + ":4: key 'tls_server_config': duplicate key (first on line 1)");
  EXPECT_FALSE(Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  cert_file: c\n"));
  EXPECT_EQ(error_,
            path_ + ":4: key 'tls_server_config.cert_file': duplicate key (first on line 2)");
  EXPECT_FALSE(
      Load(std::string("basic_auth_users:\n  alice: ") + kHash + "\n  alice: " + kHash + "\n"));
  EXPECT_EQ(error_, path_ + ":3: key 'basic_auth_users.alice': duplicate key (first on line 2)");
}

TEST_F(WebConfigTest, UnknownTlsKey) {
  EXPECT_FALSE(Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  certfile: c\n"));
  EXPECT_EQ(error_, path_ + ":4: key 'tls_server_config.certfile': unknown key");
}

TEST_F(WebConfigTest, ClientCertificates) {
  ASSERT_TRUE(
      Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: ca.crt\n"
           "  client_auth_type: RequireAndVerifyClientCert\n"))
      << error_;
  EXPECT_EQ(config_.client_ca_file, dir_.Join("ca.crt"));
  EXPECT_EQ(config_.client_auth, ClientAuth::kRequireAndVerifyClientCert);
  ASSERT_TRUE(
      Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: /ca.crt\n"
           "  client_auth_type: VerifyClientCertIfGiven\n"))
      << error_;
  EXPECT_EQ(config_.client_ca_file, "/ca.crt");
  EXPECT_EQ(config_.client_auth, ClientAuth::kVerifyClientCertIfGiven);
  ASSERT_TRUE(
      Load("tls_server_config:\n  cert_file: a\n  key_file: b\n"
           "  client_auth_type: NoClientCert\n"))
      << error_;
  EXPECT_EQ(config_.client_auth, ClientAuth::kNoClientCert);
}

TEST_F(WebConfigTest, ClientAuthTypesThatDoNotVerifyAreRefused) {
  for (const char* type : {"RequestClientCert", "RequireAnyClientCert", "RequireClientCert"}) {
    EXPECT_FALSE(Load(std::string("tls_server_config:\n  cert_file: a\n  key_file: b\n"
                                  "  client_ca_file: ca\n  client_auth_type: ") +
                      type + "\n"));
    EXPECT_EQ(error_.find(path_ + ":5: key 'tls_server_config.client_auth_type': '" + type +
                          "' is not supported"),
              0u)
        << error_;
  }
  EXPECT_FALSE(
      Load("tls_server_config:\n  cert_file: a\n  key_file: b\n"
           "  client_ca_file: ca\n  client_auth_type: VerifyEverything\n"));
  EXPECT_NE(error_.find("unknown value 'VerifyEverything'"), std::string::npos) << error_;
}

TEST_F(WebConfigTest, ClientCaAndPolicyGoTogether) {
  EXPECT_FALSE(
      Load("tls_server_config:\n  cert_file: a\n  key_file: b\n"
           "  client_auth_type: RequireAndVerifyClientCert\n"));
  EXPECT_EQ(error_, path_ +
                        ":2: key 'tls_server_config.client_ca_file': missing (client_auth_type "
                        "verifies client certificates)");
  EXPECT_FALSE(Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: ca\n"));
  EXPECT_NE(error_.find("key 'tls_server_config.client_auth_type': missing (client_ca_file is set"),
            std::string::npos)
      << error_;
  EXPECT_FALSE(
      Load("tls_server_config:\n  client_ca_file: ca\n"
           "  client_auth_type: RequireAndVerifyClientCert\n"));
  EXPECT_NE(
      error_.find("key 'tls_server_config.cert_file': missing (client certificates need TLS)"),
      std::string::npos)
      << error_;
}

TEST_F(WebConfigTest, KnownButUnsupportedKeys) {
  EXPECT_FALSE(Load("http_server_config:\n  http2: false\n"));
  EXPECT_EQ(error_, path_ + ":1: key 'http_server_config': not supported");
  EXPECT_FALSE(Load("tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n"));
  EXPECT_NE(error_.find("key 'tls_server_config.cipher_suites': not supported"), std::string::npos)
      << error_;
}

TEST_F(WebConfigTest, CertWithoutKey) {
  EXPECT_FALSE(Load("tls_server_config:\n  cert_file: server.crt\n"));
  EXPECT_EQ(error_, path_ + ":2: key 'tls_server_config.key_file': missing (cert_file is set)");
  EXPECT_FALSE(Load("tls_server_config:\n  key_file: server.key\n"));
  EXPECT_NE(error_.find("'tls_server_config.cert_file': missing"), std::string::npos) << error_;
}

TEST_F(WebConfigTest, TlsVersions) {
  EXPECT_FALSE(Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS11\n"));
  EXPECT_NE(error_.find("'tls_server_config.min_version': 'TLS11' is not supported"),
            std::string::npos)
      << error_;
  EXPECT_FALSE(Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  max_version: TLS4\n"));
  EXPECT_NE(error_.find("unknown TLS version 'TLS4'"), std::string::npos) << error_;
  EXPECT_FALSE(
      Load("tls_server_config:\n  cert_file: a\n  key_file: b\n"
           "  min_version: TLS13\n  max_version: TLS12\n"));
  EXPECT_NE(error_.find("is above max_version"), std::string::npos) << error_;
  ASSERT_TRUE(Load("tls_server_config:\n  cert_file: a\n  key_file: b\n  max_version: TLS12\n"))
      << error_;
  EXPECT_EQ(config_.max_version, TlsVersion::kTls12);
}

TEST_F(WebConfigTest, BadBcryptHash) {
  EXPECT_FALSE(Load("basic_auth_users:\n  alice: secret\n"));
  EXPECT_EQ(error_, path_ +
                        ":2: key 'basic_auth_users.alice': expected a bcrypt hash ($2a$, $2b$ or "
                        "$2y$)");
  EXPECT_FALSE(Load("basic_auth_users:\n  alice: [a]\n"));
  EXPECT_NE(error_.find("'basic_auth_users.alice': expected a string"), std::string::npos)
      << error_;
}

TEST_F(WebConfigTest, WrongShapes) {
  EXPECT_FALSE(Load("- tls_server_config\n"));
  EXPECT_NE(error_.find("expected a mapping at the top level"), std::string::npos) << error_;
  EXPECT_FALSE(Load("tls_server_config: yes\n"));
  EXPECT_NE(error_.find("'tls_server_config': expected a mapping"), std::string::npos) << error_;
  EXPECT_FALSE(Load("tls_server_config: {cert_file: [a], key_file: b}\n"));
  EXPECT_NE(error_.find("'tls_server_config.cert_file': expected a string"), std::string::npos)
      << error_;
}

TEST_F(WebConfigTest, MalformedYaml) {
  EXPECT_FALSE(Load("tls_server_config:\n  cert_file: [unclosed\n"));
  EXPECT_EQ(error_.rfind(path_ + ":", 0), 0u) << error_;
}

TEST_F(WebConfigTest, MissingFile) {
  const std::string missing = dir_.Join("absent.yml");
  EXPECT_FALSE(LoadWebConfig(missing, &config_, &error_));
  EXPECT_EQ(error_, missing + ": cannot read: open: No such file or directory");
  EXPECT_FALSE(LoadWebConfig(dir_.path(), &config_, &error_));
  EXPECT_EQ(error_, dir_.path() + ": cannot read: is a directory");
}

TEST_F(WebConfigTest, FailedLoadLeavesConfigUntouched) {
  ASSERT_TRUE(Load(std::string("basic_auth_users:\n  alice: ") + kHash + "\n")) << error_;
  EXPECT_FALSE(Load("basic_auth_users:\n  bob: nope\n"));
  EXPECT_EQ(config_.basic_auth_users.count("alice"), 1u);
}

}  // namespace
}  // namespace scx
