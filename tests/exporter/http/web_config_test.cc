// Tests for the --web.config.file parser.
#include "exporter/http/web_config.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

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
  EXPECT_EQ(error_, path_ +
                        ":2: key 'tls_config': unknown key (known keys: basic_auth_users, "
                        "http_server_config, rate_limit, tls_server_config)");
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
  EXPECT_EQ(error_.rfind(path_ + ":4: key 'tls_server_config.certfile': unknown key (known keys: "
                                 "cert, cert_file, cipher_suites, client_allowed_sans, ",
                         0),
            0u)
      << error_;
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

const char kTls[] = "tls_server_config:\n  cert_file: a\n  key_file: b\n";

// exporter-toolkit's rate_limit: an interval as Go writes durations and a burst.
TEST_F(WebConfigTest, RateLimitIsExporterToolkits) {
  ASSERT_TRUE(Load("rate_limit:\n  interval: 1s\n  burst: 20\n")) << error_;
  EXPECT_TRUE(config_.rate_limited());
  EXPECT_EQ(config_.rate_limit_interval, std::chrono::seconds(1));
  EXPECT_EQ(config_.rate_limit_burst, 20);
  ASSERT_TRUE(Load("rate_limit:\n  interval: 1.5s\n  burst: 1\n")) << error_;
  EXPECT_EQ(config_.rate_limit_interval, std::chrono::milliseconds(1500));
  ASSERT_TRUE(Load("rate_limit:\n  interval: 24h\n  burst: 10000\n")) << error_;
}

// No rate_limit, `interval: 0` (exporter-toolkit's "disabled") or no interval: no limit.
TEST_F(WebConfigTest, RateLimitWithoutAnIntervalLimitsNothing) {
  ASSERT_TRUE(Load("")) << error_;
  EXPECT_FALSE(config_.rate_limited());
  for (const char* yaml :
       {"rate_limit:\n  interval: 0\n  burst: 5\n", "rate_limit:\n  burst: 5\n", "rate_limit:\n",
        "rate_limit: {}\n", "rate_limit:\n  interval: 0\n  burst: 0\n"}) {
    ASSERT_TRUE(Load(yaml)) << yaml << error_;
    EXPECT_FALSE(config_.rate_limited()) << yaml;
  }
}

TEST_F(WebConfigTest, BadRateLimitsAreRefusedWithTheReason) {
  EXPECT_FALSE(Load("rate_limit:\n  interval: 1s\n"));  // burst 0: every request refused
  EXPECT_EQ(error_.rfind(path_ + ":2: key 'rate_limit': burst must be at least 1", 0), 0u)
      << error_;
  for (const char* interval : {"1", "1d", "-1s", "1 s", "s", ".s", "25h", "fast"}) {
    EXPECT_FALSE(Load(std::string("rate_limit:\n  interval: ") + interval + "\n  burst: 1\n"))
        << interval;
    EXPECT_EQ(error_.rfind(path_ + ":2: key 'rate_limit.interval': expected a duration as Go", 0),
              0u)
        << error_;
  }
  for (const char* burst : {"-1", "1.5", "many", "10001"}) {
    EXPECT_FALSE(Load(std::string("rate_limit:\n  interval: 1s\n  burst: ") + burst + "\n"))
        << burst;
    EXPECT_EQ(error_.rfind(path_ + ":3: key 'rate_limit.burst': expected a whole number", 0), 0u)
        << error_;
  }
  EXPECT_FALSE(Load("rate_limit:\n  interval: 1s\n  burst: 1\n  per_client: true\n"));
  EXPECT_NE(error_.find("unknown key (known keys: burst, interval)"), std::string::npos) << error_;
}

TEST_F(WebConfigTest, CipherSuitesAreGoNamesMappedToOpenSsl) {
  ASSERT_TRUE(Load(std::string(kTls) + "  cipher_suites:\n"
                                       "    - TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384\n"
                                       "    - TLS_AES_128_GCM_SHA256\n"
                                       "    - TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256\n"
                                       "  prefer_server_cipher_suites: false\n"))
      << error_;
  EXPECT_EQ(config_.tls12_ciphers, (std::vector<std::string>{"ECDHE-RSA-AES256-GCM-SHA384",
                                                             "ECDHE-ECDSA-CHACHA20-POLY1305"}));
  EXPECT_FALSE(config_.prefer_server_cipher_suites);
  ASSERT_TRUE(Load(kTls)) << error_;
  EXPECT_TRUE(config_.prefer_server_cipher_suites);  // exporter-toolkit's default
  EXPECT_TRUE(config_.tls12_ciphers.empty());

  EXPECT_FALSE(Load(std::string(kTls) + "  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n"));
  EXPECT_EQ(error_.rfind(path_ + ":4: key 'tls_server_config.cipher_suites[0]': unknown cipher "
                                 "suite 'TLS_RSA_WITH_RC4_128_SHA'",
                         0),
            0u)
      << error_;
  EXPECT_FALSE(Load(std::string(kTls) + "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n"));
  EXPECT_NE(error_.find("'tls_server_config.cipher_suites': names no TLS 1.2 suite"),
            std::string::npos)
      << error_;
  EXPECT_TRUE(
      Load(std::string(kTls) + "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n  min_version: TLS13\n"))
      << error_;
  EXPECT_FALSE(Load(std::string(kTls) + "  prefer_server_cipher_suites: maybe\n"));
  EXPECT_NE(error_.find("expected true or false, got \"maybe\""), std::string::npos) << error_;
}

TEST_F(WebConfigTest, EveryGoCipherSuiteHasAnOpenSslName) {
  std::string openssl;
  EXPECT_TRUE(OpenSslCipherName("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", &openssl));
  EXPECT_EQ(openssl, "ECDHE-RSA-AES128-GCM-SHA256");
  EXPECT_TRUE(OpenSslCipherName("TLS_RSA_WITH_AES_128_CBC_SHA", &openssl));
  EXPECT_EQ(openssl, "AES128-SHA");
  EXPECT_TRUE(OpenSslCipherName("TLS_CHACHA20_POLY1305_SHA256", &openssl));
  EXPECT_EQ(openssl, "");
  EXPECT_FALSE(OpenSslCipherName("ECDHE-RSA-AES128-GCM-SHA256", &openssl));
}

TEST_F(WebConfigTest, CurvePreferences) {
  ASSERT_TRUE(Load(std::string(kTls) + "  curve_preferences: [X25519, CurveP384, CurveP521]\n"))
      << error_;
  EXPECT_EQ(config_.groups, (std::vector<std::string>{"X25519", "P-384", "P-521"}));
  EXPECT_FALSE(Load(std::string(kTls) + "  curve_preferences: [CurveP256, P-256]\n"));
  EXPECT_EQ(error_.rfind(path_ + ":4: key 'tls_server_config.curve_preferences[1]': unknown curve "
                                 "'P-256'",
                         0),
            0u)
      << error_;
}

TEST_F(WebConfigTest, ClientAllowedSansNeedRequiredVerifiedCertificates) {
  const std::string mtls = std::string(kTls) + "  client_ca_file: ca.crt\n";
  ASSERT_TRUE(Load(mtls + "  client_auth_type: RequireAndVerifyClientCert\n"
                          "  client_allowed_sans: [one, 192.0.2.1, spiffe://x/y]\n"))
      << error_;
  EXPECT_EQ(config_.client_allowed_sans,
            (std::vector<std::string>{"one", "192.0.2.1", "spiffe://x/y"}));
  EXPECT_FALSE(Load(mtls + "  client_auth_type: VerifyClientCertIfGiven\n"
                           "  client_allowed_sans: [one]\n"));
  EXPECT_NE(error_.find("'tls_server_config.client_allowed_sans': needs client_auth_type: "
                        "RequireAndVerifyClientCert"),
            std::string::npos)
      << error_;
  EXPECT_FALSE(Load(mtls + "  client_auth_type: RequireAndVerifyClientCert\n"
                           "  client_allowed_sans: one\n"));
  EXPECT_NE(error_.find("'tls_server_config.client_allowed_sans': expected a list"),
            std::string::npos)
      << error_;
}

TEST_F(WebConfigTest, InlineCertificateKeyAndClientCa) {
  ASSERT_TRUE(
      Load("tls_server_config:\n  cert: |\n    CERT\n  key: |\n    KEY\n"
           "  client_ca: CA\n  client_auth_type: RequireAndVerifyClientCert\n"))
      << error_;
  EXPECT_TRUE(config_.tls_enabled());
  EXPECT_EQ(config_.cert_pem, "CERT\n");
  EXPECT_EQ(config_.key_pem, "KEY\n");
  EXPECT_EQ(config_.client_ca_pem, "CA");
  EXPECT_TRUE(config_.cert_file.empty());
  EXPECT_FALSE(Load("tls_server_config:\n  cert: C\n  cert_file: a\n  key_file: b\n"));
  EXPECT_NE(error_.find("'tls_server_config.cert': set cert or cert_file, not both"),
            std::string::npos)
      << error_;
  EXPECT_FALSE(Load("tls_server_config:\n  cert: C\n"));
  EXPECT_NE(error_.find("'tls_server_config.key_file': missing (cert is set)"), std::string::npos)
      << error_;
}

// exporter-toolkit's web_config_headers.good.yml, as its docs describe the keys.
TEST_F(WebConfigTest, HeadersFromTheAllowedList) {
  ASSERT_TRUE(
      Load("http_server_config:\n"
           "  http2: false\n"
           "  headers:\n"
           "    X-Frame-Options: deny\n"
           "    Strict-Transport-Security: max-age=31536000; includeSubDomains\n"
           "    X-Content-Type-Options: nosniff\n"
           "    X-XSS-Protection: 1\n"
           "    Content-Security-Policy: \"default-src 'self' *.test.example.net\"\n"))
      << error_;
  EXPECT_FALSE(config_.http2);
  ASSERT_EQ(config_.headers.size(), 5u);
  EXPECT_EQ(config_.headers[0], (std::pair<std::string, std::string>{"X-Frame-Options", "deny"}));
  EXPECT_EQ(config_.headers[4].second, "default-src 'self' *.test.example.net");
  ASSERT_TRUE(Load("http_server_config:\n  headers:\n    X-XSS-Protection: \"\"\n")) << error_;
  EXPECT_TRUE(config_.headers.empty());  // "unset if blank"
}

TEST_F(WebConfigTest, HeadersOutsideTheListOrBadValuesAreRefused) {
  EXPECT_FALSE(Load("http_server_config:\n  headers:\n    X-Powered-By: scx\n"));
  EXPECT_EQ(error_.rfind(path_ + ":3: key 'http_server_config.headers.X-Powered-By': this header "
                                 "cannot be configured",
                         0),
            0u)
      << error_;
  EXPECT_FALSE(Load("http_server_config:\n  headers:\n    X-Frame-Options: allow\n"));
  EXPECT_NE(error_.find("expected deny or sameorigin, got \"allow\""), std::string::npos) << error_;
  EXPECT_FALSE(Load("http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n"));
  EXPECT_NE(error_.find("expected nosniff"), std::string::npos) << error_;
  EXPECT_FALSE(Load(
      "http_server_config:\n  headers:\n    Content-Security-Policy: \"a\\r\\nSet-Cookie: x\"\n"));
  EXPECT_NE(error_.find("holds a control character"), std::string::npos) << error_;
  EXPECT_FALSE(Load("http_server_config:\n  http3: true\n"));
  EXPECT_NE(error_.find("unknown key (known keys: headers, http2)"), std::string::npos) << error_;
}

// HTTP/2 is exporter-toolkit's default; civetweb as built here speaks HTTP/1.1 only,
// which every client falls back to, so `http2: true` is accepted (docs say so).
TEST_F(WebConfigTest, Http2IsAcceptedEitherWay) {
  ASSERT_TRUE(Load("http_server_config:\n  http2: true\n")) << error_;
  EXPECT_TRUE(config_.http2);
  EXPECT_FALSE(Load("http_server_config:\n  http2: [x]\n"));
  EXPECT_NE(error_.find("'http_server_config.http2': expected true or false"), std::string::npos)
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
