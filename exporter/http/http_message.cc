// The plain text response of http_message.h.
#include "exporter/http/http_message.h"

#include <string>
#include <utility>

namespace scx {

HttpResponse TextResponse(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace scx
