// The one shape of every error answer (4xx and 5xx) the exporter gives, from the HTTP
// server's own refusals (404, 405, 401, 429, ...) to the handlers' 404 and 503,
// modelled on Prometheus' HTTP API errors:
//
//   Content-Type: application/json
//   {"status":"error","errorType":"not_found","error":"no brain named \"x\""}
//
// followed by a newline. The errorType follows from the status (ErrorType).
//
// Thread-safety: pure functions.
#ifndef SCX_EXPORTER_HTTP_HTTP_ERROR_H_
#define SCX_EXPORTER_HTTP_HTTP_ERROR_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "exporter/http/http_message.h"

namespace scx {

inline constexpr char kErrorContentType[] = "application/json";

// A longer message (it may quote a request path) is cut (base/utf8.h, CapText).
inline constexpr std::size_t kMaxErrorMessageBytes = 4096;

// The errorType for `status`: Prometheus' names where it has one ("bad_data" 400,
// "not_found" 404, "internal" 500, "unavailable" 503), else the reason phrase in
// snake case ("unauthorized" 401, "forbidden" 403, "method_not_allowed" 405,
// "payload_too_large" 413, "too_many_requests" 429). Any other 4xx is "bad_data",
// any other 5xx "internal".
const char* ErrorType(int status);

// {"status":"error","errorType":ErrorType(status),"error":message} and a newline;
// `message` is capped at kMaxErrorMessageBytes and made valid UTF-8.
std::string ErrorBody(int status, std::string_view message);

// A response with `status`, Content-Type kErrorContentType and ErrorBody.
HttpResponse ErrorResponse(int status, std::string_view message);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_HTTP_ERROR_H_
