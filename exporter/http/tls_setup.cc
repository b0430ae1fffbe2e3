// TLS setup with OpenSSL.
#include "exporter/http/tls_setup.h"

#include <civetweb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <memory>

namespace scx {

namespace {

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

int OpenSslVersion(TlsVersion version) {
  return version == TlsVersion::kTls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
}

bool TlsFail(const std::string& what, std::string* error) {
  *error = what + ": " + OpenSslError();
  return false;
}

// Client certificates: verified against client_ca_file, whose names are also sent
// to the client as the acceptable issuers.
bool ConfigureClientAuth(SSL_CTX* ctx, const WebConfig& config, std::string* error) {
  if (config.client_auth == ClientAuth::kNoClientCert) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    return true;
  }
  const char* ca_file = config.client_ca_file.c_str();
  if (SSL_CTX_load_verify_locations(ctx, ca_file, nullptr) != 1) {
    return TlsFail("cannot load client_ca_file " + config.client_ca_file, error);
  }
  STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca_file);
  if (names == nullptr) {
    return TlsFail("no CA certificate in client_ca_file " + config.client_ca_file, error);
  }
  SSL_CTX_set_client_CA_list(ctx, names);
  int mode = SSL_VERIFY_PEER;
  if (config.client_auth == ClientAuth::kRequireAndVerifyClientCert) {
    mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  SSL_CTX_set_verify(ctx, mode, nullptr);
  // Sessions that verified a client may be resumed only by this server.
  static const unsigned char kSessionContext[] = "skeleton-coherence-exporter";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
  return true;
}

}  // namespace

bool ConfigureServerTls(void* ssl_ctx, const WebConfig& config, std::string* error) {
  SSL_CTX* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  if (SSL_CTX_use_certificate_chain_file(ctx, config.cert_file.c_str()) != 1) {
    return TlsFail("cannot load cert_file " + config.cert_file, error);
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return TlsFail("cannot load key_file " + config.key_file, error);
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return TlsFail("key_file " + config.key_file + " does not match cert_file", error);
  }
  if (SSL_CTX_set_min_proto_version(ctx, OpenSslVersion(config.min_version)) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, OpenSslVersion(config.max_version)) != 1) {
    return TlsFail("cannot set the TLS version range", error);
  }
  return ConfigureClientAuth(ctx, config, error);
}

bool CheckServerTls(const std::string& web_config_file, const WebConfig& config,
                    std::string* error) {
  if (!mg_check_feature(MG_FEATURES_TLS)) {
    *error = web_config_file + ": TLS is configured but civetweb was built without TLS";
    return false;
  }
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> scratch(SSL_CTX_new(TLS_server_method()),
                                                            &SSL_CTX_free);
  std::string why;
  if (scratch == nullptr) {
    why = "cannot create a TLS context: " + OpenSslError();
  } else if (ConfigureServerTls(scratch.get(), config, &why)) {
    return true;
  }
  *error = web_config_file + ": " + why;
  return false;
}

}  // namespace scx
