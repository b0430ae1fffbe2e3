// TLS for the HTTP server from the web config: reads the certificate, key and
// client CA files as every small file is read (regular files only, non-blocking,
// size-capped) or takes them inline, loads them from memory into an OpenSSL context
// with the configured version range, TLS 1.2 cipher suites, server preference, curves
// and client certificate policy (CAs, then the allowed SANs), and checks up front
// that they load.
//
// Thread-safety: functions without shared state; `ctx` belongs to the caller.
#ifndef SCX_EXPORTER_HTTP_TLS_SETUP_H_
#define SCX_EXPORTER_HTTP_TLS_SETUP_H_

#include <cstdint>
#include <string>

#include "exporter/http/web_config.h"

namespace scx {

// A PEM file of a certificate chain, a key or CAs is a few kilobytes.
inline constexpr std::int64_t kMaxTlsFileBytes = std::int64_t{1} << 20;

// The bytes of the files the web config names (or of its inline PEM); OpenSSL never
// opens them itself, so that a FIFO or a device named as cert_file cannot hang the
// start.
struct TlsFiles {
  std::string cert_pem;       // cert_file or cert: the server certificate, then its chain
  std::string key_pem;        // key_file or key
  std::string client_ca_pem;  // client_ca_file or client_ca; empty when not configured
};

// Reads `config`'s files (or copies its inline PEM) into `files`. False with `error`
// "cannot load KEY PATH: why" for a file that is absent, not a regular file or over
// kMaxTlsFileBytes.
bool ReadTlsFiles(const WebConfig& config, TlsFiles* files, std::string* error);

// Loads `files` into `ssl_ctx` (an SSL_CTX*) and sets `config`'s TLS version range,
// cipher suites, curves and client certificate verification; with
// client_allowed_sans, a verified client certificate none of whose SANs is allowed
// fails the handshake (the list is kept in the context and freed with it). False with
// `error` naming the file (or key) and OpenSSL's reason. An encrypted key is refused
// (nobody is asked for a password).
bool ConfigureServerTls(void* ssl_ctx, const WebConfig& config, const TlsFiles& files,
                        std::string* error);

// Before the server starts: civetweb was built with TLS, the files are read into
// `files` and load into a scratch context, so that bad files are reported plainly.
// False with `error` starting with `web_config_file`.
bool CheckServerTls(const std::string& web_config_file, const WebConfig& config, TlsFiles* files,
                    std::string* error);

// A served certificate that expires within this time of now, or has expired, is a
// warn log line at start and at each reload.
inline constexpr std::int64_t kCertificateWarnSeconds = std::int64_t{14} * 24 * 3600;

// The notAfter of the first certificate in `cert_pem`, in seconds since the epoch.
// False when there is no certificate to read.
bool CertificateNotAfter(const std::string& cert_pem, std::int64_t* not_after_seconds);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_TLS_SETUP_H_
