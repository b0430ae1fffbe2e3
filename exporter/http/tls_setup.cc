// TLS setup with OpenSSL, from files read by ReadUntrustedFile into memory.
#include "exporter/http/tls_setup.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <vector>

#include "base/strings.h"
#include "base/untrusted_file.h"

namespace scx {

namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

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

// How errors name where a PEM came from: "cert_file PATH", or "cert (inline)".
std::string TlsSource(const std::string& key, const std::string& path) {
  return path.empty() ? key + " (inline)" : key + "_file " + path;
}

// A read-only BIO over `pem`, which must outlive it.
Bio MemoryBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
}

// The password callback of every PEM read: there is nobody to ask.
int NoPassword(char* /*buffer*/, int /*size*/, int /*rwflag*/, void* /*data*/) { return -1; }

std::string ReadFailure(const UntrustedFileResult& result) {
  if (result.error == UntrustedFileError::kTooLarge) {
    return "larger than " + std::to_string(kMaxTlsFileBytes) + " bytes";
  }
  if (result.error == UntrustedFileError::kNotRegular && result.has_info) {
    if (S_ISDIR(result.info.st_mode)) return "is a directory";
    if (S_ISFIFO(result.info.st_mode)) return "is a FIFO, not a regular file";
    return "not a regular file";
  }
  return result.message;
}

// The PEM of `key`: `inline_pem` when the config holds it inline, else the file `path`.
bool ReadTlsFile(const std::string& key, const std::string& path, const std::string& inline_pem,
                 std::string* pem, std::string* error) {
  if (path.empty()) {
    *pem = inline_pem;
    return true;
  }
  const UntrustedFileResult result = ReadUntrustedFile(path, kMaxTlsFileBytes, pem);
  if (result.error == UntrustedFileError::kNone) return true;
  *error = "cannot load " + key + " " + path + ": " + ReadFailure(result);
  return false;
}

// The end of a PEM text read to its end shows as "no start line": not an error.
bool OnlyEndOfPem() {
  const unsigned long code = ERR_peek_last_error();
  if (ERR_GET_LIB(code) != ERR_LIB_PEM || ERR_GET_REASON(code) != PEM_R_NO_START_LINE) {
    return false;
  }
  ERR_clear_error();
  return true;
}

// As SSL_CTX_use_certificate_chain_file: the first certificate is the server's,
// the rest its chain.
bool UseCertificateChain(SSL_CTX* ctx, const std::string& pem) {
  Bio bio = MemoryBio(pem);
  if (bio == nullptr) return false;
  X509* leaf = PEM_read_bio_X509_AUX(bio.get(), nullptr, &NoPassword, nullptr);
  if (leaf == nullptr) return false;
  const bool used = SSL_CTX_use_certificate(ctx, leaf) == 1;
  X509_free(leaf);
  if (!used || SSL_CTX_clear_chain_certs(ctx) != 1) return false;
  while (X509* issuer = PEM_read_bio_X509(bio.get(), nullptr, &NoPassword, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx, issuer) != 1) {
      X509_free(issuer);
      return false;
    }
  }
  return OnlyEndOfPem();
}

bool UsePrivateKey(SSL_CTX* ctx, const std::string& pem) {
  Bio bio = MemoryBio(pem);
  if (bio == nullptr) return false;
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, &NoPassword, nullptr);
  if (key == nullptr) return false;
  const bool used = SSL_CTX_use_PrivateKey(ctx, key) == 1;
  EVP_PKEY_free(key);
  return used;
}

// As SSL_CTX_load_verify_locations and SSL_load_client_CA_file: every certificate
// (and CRL) of `pem` is trusted for client certificates, and the certificates'
// names are sent as the acceptable issuers. `certificates` counts them.
bool UseClientCas(SSL_CTX* ctx, const std::string& pem, int* certificates) {
  *certificates = 0;
  Bio bio = MemoryBio(pem);
  if (bio == nullptr) return false;
  STACK_OF(X509_INFO)* infos = PEM_X509_INFO_read_bio(bio.get(), nullptr, &NoPassword, nullptr);
  if (infos == nullptr) return false;
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  bool ok = true;
  for (int i = 0; i < sk_X509_INFO_num(infos) && ok; ++i) {
    X509_INFO* info = sk_X509_INFO_value(infos, i);
    if (info->x509 != nullptr) {
      ok = X509_STORE_add_cert(store, info->x509) == 1 &&
           SSL_CTX_add_client_CA(ctx, info->x509) == 1;
      ++*certificates;
    }
    if (ok && info->crl != nullptr) ok = X509_STORE_add_crl(store, info->crl) == 1;
  }
  sk_X509_INFO_pop_free(infos, X509_INFO_free);
  return ok;
}

// The subjectAltName entries of `cert` that exporter-toolkit compares with
// client_allowed_sans, written as Go writes them: DNS names, e-mail addresses and URIs
// as they are, IP addresses as text (an IPv4-mapped IPv6 address as IPv4).
std::vector<std::string> CertificateSans(X509* cert) {
  std::vector<std::string> sans;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return sans;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    int type = 0;
    const auto* value = static_cast<const ASN1_STRING*>(GENERAL_NAME_get0_value(name, &type));
    if (value == nullptr) continue;
    const auto* data = ASN1_STRING_get0_data(value);
    const int length = ASN1_STRING_length(value);
    if (type == GEN_DNS || type == GEN_EMAIL || type == GEN_URI) {
      sans.emplace_back(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
    } else if (type == GEN_IPADD) {
      static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
      const bool mapped = length == 16 && std::equal(kMapped, kMapped + 12, data);
      char text[INET6_ADDRSTRLEN] = "";
      if (length == 4 || mapped) {
        inet_ntop(AF_INET, data + (mapped ? 12 : 0), text, sizeof(text));
      } else if (length == 16) {
        inet_ntop(AF_INET6, data, text, sizeof(text));
      }
      if (text[0] != '\0') sans.emplace_back(text);
    }
  }
  GENERAL_NAMES_free(names);
  return sans;
}

// client_allowed_sans, kept in the SSL_CTX it applies to and freed with it.
void FreeAllowedSans(void* /*parent*/, void* sans, CRYPTO_EX_DATA* /*data*/, int /*index*/,
                     long /*argl*/, void* /*argp*/) {
  delete static_cast<std::vector<std::string>*>(sans);
}

int AllowedSansIndex() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, &FreeAllowedSans);
  return index;
}

// OpenSSL's verify callback: a client certificate whose chain verified is accepted
// only when one of its SANs is allowed (client_allowed_sans); otherwise the handshake
// fails.
int VerifyAllowedSans(int preverified, X509_STORE_CTX* store) {
  if (preverified != 1 || X509_STORE_CTX_get_error_depth(store) != 0) return preverified;
  auto* ssl =
      static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  if (ssl == nullptr) return 0;
  const auto* allowed = static_cast<const std::vector<std::string>*>(
      SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), AllowedSansIndex()));
  if (allowed == nullptr) return 1;
  for (const std::string& san : CertificateSans(X509_STORE_CTX_get_current_cert(store))) {
    if (std::find(allowed->begin(), allowed->end(), san) != allowed->end()) return 1;
  }
  X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
  return 0;
}

bool UseAllowedSans(SSL_CTX* ctx, const std::vector<std::string>& sans) {
  auto* kept = new std::vector<std::string>(sans);
  if (AllowedSansIndex() < 0 || SSL_CTX_set_ex_data(ctx, AllowedSansIndex(), kept) != 1) {
    delete kept;
    return false;
  }
  return true;
}

// Client certificates: verified against client_ca_file, whose names are also sent
// to the client as the acceptable issuers, and then against client_allowed_sans.
bool ConfigureClientAuth(SSL_CTX* ctx, const WebConfig& config, const TlsFiles& files,
                         std::string* error) {
  if (config.client_auth == ClientAuth::kNoClientCert) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    return true;
  }
  const std::string source = TlsSource("client_ca", config.client_ca_file);
  int certificates = 0;
  if (!UseClientCas(ctx, files.client_ca_pem, &certificates)) {
    return TlsFail("cannot load " + source, error);
  }
  if (certificates == 0) return TlsFail("no CA certificate in " + source, error);
  int mode = SSL_VERIFY_PEER;
  if (config.client_auth == ClientAuth::kRequireAndVerifyClientCert) {
    mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  if (config.client_allowed_sans.empty()) {
    SSL_CTX_set_verify(ctx, mode, nullptr);
  } else {
    if (!UseAllowedSans(ctx, config.client_allowed_sans)) {
      return TlsFail("cannot keep client_allowed_sans", error);
    }
    SSL_CTX_set_verify(ctx, mode, &VerifyAllowedSans);
  }
  // Sessions that verified a client may be resumed only by this server.
  static const unsigned char kSessionContext[] = "skeleton-coherence-exporter";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
  return true;
}

// cipher_suites (TLS 1.2 only), prefer_server_cipher_suites and curve_preferences.
bool ConfigureCiphers(SSL_CTX* ctx, const WebConfig& config, std::string* error) {
  if (!config.tls12_ciphers.empty() &&
      SSL_CTX_set_cipher_list(ctx, Join(config.tls12_ciphers, ":").c_str()) != 1) {
    return TlsFail("cannot use cipher_suites", error);
  }
  if (config.prefer_server_cipher_suites) {
    SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
  } else {
    SSL_CTX_clear_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
  }
  if (!config.groups.empty() &&
      SSL_CTX_set1_groups_list(ctx, Join(config.groups, ":").c_str()) != 1) {
    return TlsFail("cannot use curve_preferences", error);
  }
  return true;
}

}  // namespace

bool ReadTlsFiles(const WebConfig& config, TlsFiles* files, std::string* error) {
  *files = TlsFiles();
  return ReadTlsFile("cert_file", config.cert_file, config.cert_pem, &files->cert_pem, error) &&
         ReadTlsFile("key_file", config.key_file, config.key_pem, &files->key_pem, error) &&
         (!config.has_client_ca() ||
          ReadTlsFile("client_ca_file", config.client_ca_file, config.client_ca_pem,
                      &files->client_ca_pem, error));
}

bool ConfigureServerTls(void* ssl_ctx, const WebConfig& config, const TlsFiles& files,
                        std::string* error) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  const std::string cert = TlsSource("cert", config.cert_file);
  const std::string key = TlsSource("key", config.key_file);
  if (!UseCertificateChain(ctx, files.cert_pem)) return TlsFail("cannot load " + cert, error);
  if (!UsePrivateKey(ctx, files.key_pem)) return TlsFail("cannot load " + key, error);
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return TlsFail("cannot load " + key + ": it does not match the certificate", error);
  }
  if (SSL_CTX_set_min_proto_version(ctx, OpenSslVersion(config.min_version)) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, OpenSslVersion(config.max_version)) != 1) {
    return TlsFail("cannot set the TLS version range", error);
  }
  return ConfigureCiphers(ctx, config, error) && ConfigureClientAuth(ctx, config, files, error);
}

bool CheckServerTls(const std::string& web_config_file, const WebConfig& config, TlsFiles* files,
                    std::string* error) {
  if (!mg_check_feature(MG_FEATURES_TLS)) {
    *error = web_config_file + ": TLS is configured but civetweb was built without TLS";
    return false;
  }
  std::string why;
  if (!ReadTlsFiles(config, files, &why)) {
    *error = web_config_file + ": " + why;
    return false;
  }
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> scratch(SSL_CTX_new(TLS_server_method()),
                                                            &SSL_CTX_free);
  if (scratch == nullptr) {
    why = "cannot create a TLS context: " + OpenSslError();
  } else if (ConfigureServerTls(scratch.get(), config, *files, &why)) {
    return true;
  }
  *error = web_config_file + ": " + why;
  return false;
}

bool CertificateNotAfter(const std::string& cert_pem, std::int64_t* not_after_seconds) {
  Bio bio = MemoryBio(cert_pem);
  if (bio == nullptr) return false;
  std::unique_ptr<X509, decltype(&X509_free)> leaf(
      PEM_read_bio_X509_AUX(bio.get(), nullptr, &NoPassword, nullptr), &X509_free);
  ERR_clear_error();
  if (leaf == nullptr) return false;
  std::tm time = {};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(leaf.get()), &time) != 1) return false;
  *not_after_seconds = static_cast<std::int64_t>(timegm(&time));
  return true;
}

}  // namespace scx
