// TLS for the HTTP server from the web config: loads the certificate, key and
// client CAs into an OpenSSL context with the configured version range and client
// certificate policy, and checks up front that the files load.
//
// Thread-safety: functions without shared state; `ctx` belongs to the caller.
#ifndef SCX_EXPORTER_HTTP_TLS_SETUP_H_
#define SCX_EXPORTER_HTTP_TLS_SETUP_H_

#include <string>

#include "exporter/http/web_config.h"

namespace scx {

// Loads `config`'s certificate chain, key and client CAs into `ssl_ctx` (an
// SSL_CTX*) and sets the TLS version range and client certificate verification.
// False with `error` naming the file and OpenSSL's reason.
bool ConfigureServerTls(void* ssl_ctx, const WebConfig& config, std::string* error);

// Before the server starts: civetweb was built with TLS and the files load into a
// scratch context, so that bad files are reported plainly. False with `error`
// starting with `web_config_file`.
bool CheckServerTls(const std::string& web_config_file, const WebConfig& config,
                    std::string* error);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_TLS_SETUP_H_
