// The JSON error body of every 4xx and 5xx answer.
#include "exporter/http/http_error.h"

#include "base/json_string.h"
#include "base/utf8.h"

namespace scx {

const char* ErrorType(int status) {
  switch (status) {
    case 400:
      return "bad_data";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 413:
      return "payload_too_large";
    case 429:
      return "too_many_requests";
    case 500:
      return "internal";
    case 503:
      return "unavailable";
  }
  return status >= 500 ? "internal" : "bad_data";
}

std::string ErrorBody(int status, std::string_view message) {
  return std::string("{\"status\":\"error\",\"errorType\":\"") + ErrorType(status) +
         "\",\"error\":\"" + EscapeJsonString(CapText(message, kMaxErrorMessageBytes)) + "\"}\n";
}

HttpResponse ErrorResponse(int status, std::string_view message) {
  HttpResponse response;
  response.status = status;
  response.content_type = kErrorContentType;
  response.body = ErrorBody(status, message);
  return response;
}

}  // namespace scx
