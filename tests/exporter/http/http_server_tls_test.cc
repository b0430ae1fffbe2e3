// Tests for HttpServer's TLS, mutual TLS and IPv6 over real sockets, with a CA, a
// server certificate and client certificates made in the test by the openssl CLI.
#include <arpa/inet.h>
#include <crypt.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "exporter/http/http_server.h"
#include "tests/http_client.h"
#include "tests/http_events_recorder.h"
#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::BasicAuthorization;
using testing::ConnectLocal;
using testing::TempDir;
using testing::WriteFile;
using Clock = std::chrono::steady_clock;

// How long a refused or failed connection may take to be closed; a hang bound.
constexpr int kCloseBoundMs = 5000;

bool Run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// Makes, in `dir`: a CA (ca.crt/ca.key); server.crt for localhost, 127.0.0.1 and ::1
// signed by it; client.crt signed by it; rogue.crt, a client certificate signed by
// another CA (rogue-ca.crt).
bool MakePki(const TempDir& dir) {
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  auto ca = [&](const std::string& name) {
    return Run("openssl req -x509 " + ec + " -days 2 -subj /CN=scx-test-" + name + " -keyout '" +
               dir.Join(name + ".key") + "' -out '" + dir.Join(name + ".crt") + "'");
  };
  auto leaf = [&](const std::string& name, const std::string& ca_name, const std::string& cn,
                  const std::string& extensions) {
    WriteFile(dir.Join(name + ".ext"), extensions);
    return Run("openssl req " + ec + " -subj /CN=" + cn + " -keyout '" + dir.Join(name + ".key") +
               "' -out '" + dir.Join(name + ".csr") + "'") &&
           Run("openssl x509 -req -days 2 -in '" + dir.Join(name + ".csr") + "' -CA '" +
               dir.Join(ca_name + ".crt") + "' -CAkey '" + dir.Join(ca_name + ".key") +
               "' -CAcreateserial -extfile '" + dir.Join(name + ".ext") + "' -out '" +
               dir.Join(name + ".crt") + "'");
  };
  const std::string client_ext = "extendedKeyUsage=clientAuth\n";
  return ca("ca") && ca("rogue-ca") &&
         leaf("server", "ca", "localhost",
              "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n") &&
         leaf("client", "ca", "prometheus", client_ext) &&
         leaf("rogue", "rogue-ca", "prometheus", client_ext) &&
         leaf("sans", "ca", "prometheus",
              "subjectAltName=DNS:prometheus.example,IP:192.0.2.7,email:scraper@example.com,"
              "URI:spiffe://example.com/prometheus\n" +
                  client_ext) &&
         leaf("other-sans", "ca", "prometheus",
              "subjectAltName=DNS:other.example,IP:192.0.2.8\n" + client_ext);
}

struct TlsClient {
  std::string ca_file;    // verify the server against it; empty: no verification
  std::string cert_file;  // client certificate; empty: none
  std::string key_file;
  int max_version = 0;  // e.g. TLS1_2_VERSION; 0: the library's highest
  std::string ciphers;  // TLS 1.2 cipher list offered, in order; empty: the defaults
  std::string groups;   // groups offered; empty: the defaults
};

struct TlsResult {
  bool handshake = false;  // the client finished its side of the handshake
  int version = 0;         // TLS1_2_VERSION, TLS1_3_VERSION
  std::string cipher;      // the cipher suite agreed (OpenSSL's name)
  int group = 0;           // the NID of the key exchange group agreed
  std::string response;    // every byte read after the handshake
  std::string error;       // OpenSSL's reason when the handshake or a read failed
};

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

// One HTTPS request to 127.0.0.1:`port`.
TlsResult TlsExchange(int port, const std::string& request, const TlsClient& client = {}) {
  TlsResult result;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                        &SSL_CTX_free);
  if (client.max_version != 0) SSL_CTX_set_max_proto_version(ctx.get(), client.max_version);
  if (!client.ciphers.empty()) SSL_CTX_set_cipher_list(ctx.get(), client.ciphers.c_str());
  if (!client.groups.empty()) SSL_CTX_set1_groups_list(ctx.get(), client.groups.c_str());
  if (!client.ca_file.empty()) {
    SSL_CTX_load_verify_locations(ctx.get(), client.ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    X509_VERIFY_PARAM_set1_host(SSL_CTX_get0_param(ctx.get()), "localhost", 0);
  }
  if (!client.cert_file.empty() &&
      (SSL_CTX_use_certificate_file(ctx.get(), client.cert_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
       SSL_CTX_use_PrivateKey_file(ctx.get(), client.key_file.c_str(), SSL_FILETYPE_PEM) != 1)) {
    result.error = "cannot load the client certificate: " + OpenSslError();
    return result;
  }
  int fd = ConnectLocal(port);
  if (fd < 0) return result;
  timeval timeout{kCloseBoundMs / 1000, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(ctx.get()), &SSL_free);
  SSL_set_fd(ssl.get(), fd);
  if (SSL_connect(ssl.get()) == 1) {
    result.handshake = true;
    result.version = SSL_version(ssl.get());
    result.cipher = SSL_get_cipher_name(ssl.get());
    result.group = SSL_get_negotiated_group(ssl.get());
    SSL_write(ssl.get(), request.data(), static_cast<int>(request.size()));
    char chunk[4096];
    int n;
    while ((n = SSL_read(ssl.get(), chunk, sizeof(chunk))) > 0) result.response.append(chunk, n);
  }
  result.error = OpenSslError();
  close(fd);
  return result;
}

const char kGet[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";

bool IsOk(const TlsResult& result) {
  return result.response.rfind("HTTP/1.1 200", 0) == 0 &&
         result.response.find("\r\n\r\nscx_up 1\n") != std::string::npos;
}

class HttpServerTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::ToolAvailable("openssl")) GTEST_SKIP() << "openssl CLI not installed";
    ASSERT_TRUE(MakePki(dir_));
    server_.Handle("/metrics", [](const HttpRequest&) {
      HttpResponse response;
      response.body = "scx_up 1\n";
      return response;
    });
  }

  bool StartWithConfig(const std::string& yaml, std::string* error,
                       const std::string& listen_address = "127.0.0.1:0") {
    WriteFile(dir_.Join("web.yml"), yaml);
    HttpServerOptions options;
    options.listen_addresses = {listen_address};
    options.num_threads = 8;
    options.request_timeout_ms = 2000;
    options.web_config_file = dir_.Join("web.yml");
    options.events = &events_;
    return server_.Start(options, error);
  }

  void StartOrDie(const std::string& yaml) {
    std::string error;
    ASSERT_TRUE(StartWithConfig(yaml, &error)) << error;
  }

  TlsClient Verifying() const {
    TlsClient client;
    client.ca_file = dir_.Join("ca.crt");
    return client;
  }
  TlsClient WithCertificate(const std::string& name) const {
    TlsClient client = Verifying();
    client.cert_file = dir_.Join(name + ".crt");
    client.key_file = dir_.Join(name + ".key");
    return client;
  }

  TempDir dir_;
  testing::HttpEventsRecorder events_;  // outlives the server
  HttpServer server_;
};

const char kServerTls[] = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";

TEST_F(HttpServerTlsTest, ServesHttpsWithTheConfiguredCertificate) {
  // Relative paths resolve against the web config file's directory.
  StartOrDie(kServerTls);
  TlsResult tls = TlsExchange(server_.port(), kGet, Verifying());
  ASSERT_TRUE(tls.handshake) << tls.error;
  EXPECT_EQ(tls.version, TLS1_3_VERSION);
  EXPECT_TRUE(IsOk(tls)) << tls.response;

  TlsClient tls12_client = Verifying();
  tls12_client.max_version = TLS1_2_VERSION;
  TlsResult tls12 = TlsExchange(server_.port(), kGet, tls12_client);
  ASSERT_TRUE(tls12.handshake) << tls12.error;
  EXPECT_EQ(tls12.version, TLS1_2_VERSION);
  EXPECT_TRUE(IsOk(tls12)) << tls12.response;
}

TEST_F(HttpServerTlsTest, PlainHttpOnTheTlsPortIsClosedWithoutAnAnswer) {
  StartOrDie(kServerTls);
  int fd = ConnectLocal(server_.port());
  ASSERT_GE(fd, 0);
  const std::string plain = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
  send(fd, plain.data(), plain.size(), MSG_NOSIGNAL);
  std::string received;
  const auto deadline = Clock::now() + std::chrono::milliseconds(kCloseBoundMs);
  bool closed = false;
  while (!closed && Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) != 1) continue;
    char chunk[4096];
    ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) closed = true;
    if (n > 0) received.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  EXPECT_TRUE(closed) << "the server kept a plain-HTTP connection open";
  EXPECT_EQ(received.find("scx_up"), std::string::npos) << received;
  EXPECT_EQ(received.rfind("HTTP/1.1 200", 0), std::string::npos) << received;
  EXPECT_TRUE(IsOk(TlsExchange(server_.port(), kGet, Verifying())));  // still serving
}

// Every connection closed before its handshake completed is reported, whether
// civetweb logs why (a plain-HTTP request, a refused version) or not (a client that
// connects and goes away); a completed handshake is not, and its request is reported.
TEST_F(HttpServerTlsTest, FailedHandshakesAreReported) {
  StartOrDie(std::string(kServerTls) + "  min_version: TLS13\n");
  ASSERT_TRUE(IsOk(TlsExchange(server_.port(), kGet, Verifying())));
  ASSERT_TRUE(testing::WaitFor([&] { return events_.requests("/metrics", 200) == 1; },
                               std::chrono::seconds(5)));
  EXPECT_EQ(events_.tls_handshake_failures(), 0);

  int fd = ConnectLocal(server_.port());  // plain HTTP
  ASSERT_GE(fd, 0);
  const std::string plain = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
  send(fd, plain.data(), plain.size(), MSG_NOSIGNAL);
  ASSERT_TRUE(testing::WaitFor([&] { return events_.tls_handshake_failures() == 1; },
                               std::chrono::seconds(5)));
  close(fd);

  TlsClient tls12 = Verifying();  // a version the server refuses
  tls12.max_version = TLS1_2_VERSION;
  EXPECT_FALSE(TlsExchange(server_.port(), kGet, tls12).handshake);
  ASSERT_TRUE(testing::WaitFor([&] { return events_.tls_handshake_failures() == 2; },
                               std::chrono::seconds(5)));

  fd = ConnectLocal(server_.port());  // connects, says nothing, goes away
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_TRUE(testing::WaitFor([&] { return events_.tls_handshake_failures() == 3; },
                               std::chrono::seconds(5)));

  // Still serving; a worker that served a failed handshake counts its next one right.
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(IsOk(TlsExchange(server_.port(), kGet, Verifying())));
  ASSERT_TRUE(testing::WaitFor([&] { return events_.requests("/metrics", 200) == 11; },
                               std::chrono::seconds(5)));
  EXPECT_EQ(events_.tls_handshake_failures(), 3);
  EXPECT_EQ(events_.all_requests(), 11);  // a failed handshake is no request
}

TEST_F(HttpServerTlsTest, MinVersionTls13RejectsTls12) {
  StartOrDie(std::string(kServerTls) + "  min_version: TLS13\n");
  TlsClient tls12 = Verifying();
  tls12.max_version = TLS1_2_VERSION;
  EXPECT_FALSE(TlsExchange(server_.port(), kGet, tls12).handshake);
  EXPECT_TRUE(IsOk(TlsExchange(server_.port(), kGet, Verifying())));
}

TEST_F(HttpServerTlsTest, MutualTlsRequiresACertificateSignedByTheClientCa) {
  StartOrDie(std::string(kServerTls) +
             "  client_ca_file: ca.crt\n  client_auth_type: RequireAndVerifyClientCert\n");
  TlsResult anonymous = TlsExchange(server_.port(), kGet, Verifying());
  EXPECT_FALSE(IsOk(anonymous)) << anonymous.response;
  EXPECT_EQ(anonymous.response, "");
  EXPECT_NE(anonymous.error.find("certificate required"), std::string::npos) << anonymous.error;

  TlsClient anonymous12 = Verifying();
  anonymous12.max_version = TLS1_2_VERSION;
  EXPECT_FALSE(TlsExchange(server_.port(), kGet, anonymous12).handshake);

  TlsResult rogue = TlsExchange(server_.port(), kGet, WithCertificate("rogue"));
  EXPECT_EQ(rogue.response, "");
  EXPECT_NE(rogue.error.find("unknown ca"), std::string::npos) << rogue.error;

  TlsResult signed_by_ca = TlsExchange(server_.port(), kGet, WithCertificate("client"));
  EXPECT_TRUE(IsOk(signed_by_ca)) << signed_by_ca.response << signed_by_ca.error;
}

TEST_F(HttpServerTlsTest, VerifyClientCertIfGivenAcceptsNoneAndRejectsRogue) {
  StartOrDie(std::string(kServerTls) +
             "  client_ca_file: ca.crt\n  client_auth_type: VerifyClientCertIfGiven\n");
  EXPECT_TRUE(IsOk(TlsExchange(server_.port(), kGet, Verifying())));
  EXPECT_TRUE(IsOk(TlsExchange(server_.port(), kGet, WithCertificate("client"))));
  EXPECT_EQ(TlsExchange(server_.port(), kGet, WithCertificate("rogue")).response, "");
}

TEST_F(HttpServerTlsTest, TlsWithBasicAuth) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  ASSERT_NE(crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof(salt)), nullptr);
  auto data = std::make_unique<crypt_data>();
  const char* hash = crypt_rn("pw", salt, data.get(), sizeof(*data));
  ASSERT_NE(hash, nullptr);
  StartOrDie(std::string(kServerTls) + "basic_auth_users:\n  alice: " + hash + "\n");
  TlsResult anonymous = TlsExchange(server_.port(), kGet, Verifying());
  EXPECT_EQ(anonymous.response.rfind("HTTP/1.1 401", 0), 0u) << anonymous.response;
  const std::string authorized = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nAuthorization: " +
                                 BasicAuthorization("alice", "pw") +
                                 "\r\nConnection: close\r\n\r\n";
  EXPECT_TRUE(IsOk(TlsExchange(server_.port(), authorized, Verifying())));
}

// cipher_suites (Go's names) restrict TLS 1.2 to those suites, and
// prefer_server_cipher_suites decides whose order wins.
TEST_F(HttpServerTlsTest, CipherSuitesAndServerPreferenceAreApplied) {
  const std::string suites =
      "  cipher_suites:\n"
      "    - TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384\n"
      "    - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256\n"
      "    - TLS_AES_128_GCM_SHA256\n";
  TlsClient client = Verifying();
  client.max_version = TLS1_2_VERSION;
  client.ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384";
  StartOrDie(std::string(kServerTls) + suites);
  TlsResult preferred = TlsExchange(server_.port(), kGet, client);
  ASSERT_TRUE(IsOk(preferred)) << preferred.error;
  EXPECT_EQ(preferred.cipher, "ECDHE-ECDSA-AES256-GCM-SHA384");  // the server's first

  TlsClient outside = client;
  outside.ciphers = "ECDHE-ECDSA-CHACHA20-POLY1305";
  EXPECT_FALSE(TlsExchange(server_.port(), kGet, outside).handshake);
  EXPECT_TRUE(IsOk(TlsExchange(server_.port(), kGet, Verifying())));  // TLS 1.3: unrestricted
  server_.Stop();

  StartOrDie(std::string(kServerTls) + suites + "  prefer_server_cipher_suites: false\n");
  TlsResult clients_choice = TlsExchange(server_.port(), kGet, client);
  ASSERT_TRUE(IsOk(clients_choice)) << clients_choice.error;
  EXPECT_EQ(clients_choice.cipher, "ECDHE-ECDSA-AES128-GCM-SHA256");  // the client's first
}

TEST_F(HttpServerTlsTest, CurvePreferencesAreApplied) {
  StartOrDie(std::string(kServerTls) + "  curve_preferences: [CurveP384]\n");
  TlsClient x25519 = Verifying();
  x25519.groups = "X25519";
  EXPECT_FALSE(TlsExchange(server_.port(), kGet, x25519).handshake);
  TlsClient both = Verifying();
  both.groups = "X25519:P-384";
  TlsResult agreed = TlsExchange(server_.port(), kGet, both);
  ASSERT_TRUE(IsOk(agreed)) << agreed.error;
  EXPECT_EQ(agreed.group, NID_secp384r1);
}

// As exporter-toolkit's web_config_auth_client_san.good.yaml: a verified client
// certificate is accepted only when a SAN (DNS, IP, e-mail or URI) is in the list.
TEST_F(HttpServerTlsTest, ClientAllowedSansAcceptOnlyAMatchingCertificate) {
  const std::string mtls = std::string(kServerTls) +
                           "  client_ca_file: ca.crt\n"
                           "  client_auth_type: RequireAndVerifyClientCert\n"
                           "  client_allowed_sans:\n";
  for (const char* san : {"prometheus.example", "192.0.2.7", "scraper@example.com",
                          "spiffe://example.com/prometheus"}) {
    StartOrDie(mtls + "    - one\n    - \"" + san + "\"\n");
    TlsResult matching = TlsExchange(server_.port(), kGet, WithCertificate("sans"));
    EXPECT_TRUE(IsOk(matching)) << san << ": " << matching.error;
    TlsResult other = TlsExchange(server_.port(), kGet, WithCertificate("other-sans"));
    EXPECT_EQ(other.response, "") << san;
    TlsResult no_san = TlsExchange(server_.port(), kGet, WithCertificate("client"));
    EXPECT_EQ(no_san.response, "") << san;
    server_.Stop();
  }
}

TEST_F(HttpServerTlsTest, InlineCertificateAndKey) {
  auto indented = [&](const std::string& file) {
    const std::string text = testing::ReadFile(dir_.Join(file));
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      out += "    " + text.substr(start, end - start) + "\n";
      start = end == std::string::npos ? text.size() : end + 1;
    }
    return out;
  };
  StartOrDie("tls_server_config:\n  cert: |\n" + indented("server.crt") + "  key: |\n" +
             indented("server.key"));
  EXPECT_TRUE(IsOk(TlsExchange(server_.port(), kGet, Verifying())));
}

TEST_F(HttpServerTlsTest, BadFilesFailStartWithTheirName) {
  std::string error;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(StartWithConfig(
      "tls_server_config:\n  cert_file: absent.crt\n  key_file: server.key\n", &error));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(error.find("cannot load cert_file " + dir_.Join("absent.crt")), std::string::npos)
      << error;

  EXPECT_FALSE(StartWithConfig(
      "tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n", &error));
  EXPECT_NE(error.find("cannot load key_file " + dir_.Join("client.key")), std::string::npos)
      << error;
  EXPECT_NE(error.find("key values mismatch"), std::string::npos) << error;

  EXPECT_FALSE(StartWithConfig(std::string(kServerTls) +
                                   "  client_ca_file: absent-ca.crt\n"
                                   "  client_auth_type: RequireAndVerifyClientCert\n",
                               &error));
  EXPECT_NE(error.find("cannot load client_ca_file " + dir_.Join("absent-ca.crt")),
            std::string::npos)
      << error;
}

// True when this machine can bind [::1].
bool HaveIpv6Loopback() {
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return ok;
}

// A GET of /metrics over [::1]:`port`; the raw response.
std::string GetOverIpv6(int port) {
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  address.sin6_port = htons(static_cast<uint16_t>(port));
  timeval timeout{kCloseBoundMs / 1000, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string received;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const std::string request = kGet;
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char chunk[4096];
    ssize_t n;
    while ((n = recv(fd, chunk, sizeof(chunk), 0)) > 0) received.append(chunk, n);
  }
  close(fd);
  return received;
}

TEST(HttpServerIpv6Test, ListensAndAnswersOnIpv6Loopback) {
  if (!HaveIpv6Loopback()) GTEST_SKIP() << "this machine has no [::1]";
  HttpServer server;
  server.Handle("/metrics", [](const HttpRequest&) {
    HttpResponse response;
    response.body = "scx_up 1\n";
    return response;
  });
  HttpServerOptions options;
  options.listen_addresses = {"[::1]:0"};
  std::string error;
  ASSERT_TRUE(server.Start(options, &error)) << error;
  ASSERT_GT(server.port(), 0);
  const std::string response = GetOverIpv6(server.port());
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_NE(response.find("\r\n\r\nscx_up 1\n"), std::string::npos) << response;
  server.Stop();
}

}  // namespace
}  // namespace scx
