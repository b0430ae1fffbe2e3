// TLS setup with OpenSSL, from files read by ReadBrainFile into memory.
#include "exporter/http/tls_setup.h"

#include <civetweb.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <ctime>
#include <memory>

#include "base/brain_file.h"

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

// A read-only BIO over `pem`, which must outlive it.
Bio MemoryBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
}

// The password callback of every PEM read: there is nobody to ask.
int NoPassword(char* /*buffer*/, int /*size*/, int /*rwflag*/, void* /*data*/) { return -1; }

std::string ReadFailure(const BrainFileResult& result) {
  if (result.error == BrainFileError::kTooLarge) {
    return "larger than " + std::to_string(kMaxTlsFileBytes) + " bytes";
  }
  if (result.error == BrainFileError::kNotRegular && result.has_info) {
    if (S_ISDIR(result.info.st_mode)) return "is a directory";
    if (S_ISFIFO(result.info.st_mode)) return "is a FIFO, not a regular file";
    return "not a regular file";
  }
  return result.message;
}

bool ReadTlsFile(const std::string& key, const std::string& path, std::string* pem,
                 std::string* error) {
  const BrainFileResult result = ReadBrainFile(path, kMaxTlsFileBytes, pem);
  if (result.error == BrainFileError::kNone) return true;
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

// Client certificates: verified against client_ca_file, whose names are also sent
// to the client as the acceptable issuers.
bool ConfigureClientAuth(SSL_CTX* ctx, const WebConfig& config, const TlsFiles& files,
                         std::string* error) {
  if (config.client_auth == ClientAuth::kNoClientCert) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    return true;
  }
  int certificates = 0;
  if (!UseClientCas(ctx, files.client_ca_pem, &certificates)) {
    return TlsFail("cannot load client_ca_file " + config.client_ca_file, error);
  }
  if (certificates == 0) {
    return TlsFail("no CA certificate in client_ca_file " + config.client_ca_file, error);
  }
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

bool ReadTlsFiles(const WebConfig& config, TlsFiles* files, std::string* error) {
  *files = TlsFiles();
  return ReadTlsFile("cert_file", config.cert_file, &files->cert_pem, error) &&
         ReadTlsFile("key_file", config.key_file, &files->key_pem, error) &&
         (config.client_ca_file.empty() ||
          ReadTlsFile("client_ca_file", config.client_ca_file, &files->client_ca_pem, error));
}

bool ConfigureServerTls(void* ssl_ctx, const WebConfig& config, const TlsFiles& files,
                        std::string* error) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  if (!UseCertificateChain(ctx, files.cert_pem)) {
    return TlsFail("cannot load cert_file " + config.cert_file, error);
  }
  if (!UsePrivateKey(ctx, files.key_pem)) {
    return TlsFail("cannot load key_file " + config.key_file, error);
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return TlsFail("cannot load key_file " + config.key_file + ": it does not match cert_file",
                   error);
  }
  if (SSL_CTX_set_min_proto_version(ctx, OpenSslVersion(config.min_version)) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, OpenSslVersion(config.max_version)) != 1) {
    return TlsFail("cannot set the TLS version range", error);
  }
  return ConfigureClientAuth(ctx, config, files, error);
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
