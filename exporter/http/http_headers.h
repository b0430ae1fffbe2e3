// Small parsers for HTTP request header values.
//
// Thread-safety: pure functions.
#ifndef SCX_EXPORTER_HTTP_HTTP_HEADERS_H_
#define SCX_EXPORTER_HTTP_HTTP_HEADERS_H_

#include <string>

namespace scx {

// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
std::string TrimHttpSpace(const std::string& text);

// True when one Accept-Encoding header value lists "gzip" (any case) with a q-value
// above 0.
bool AcceptEncodingAllowsGzip(const std::string& accept_encoding);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_HTTP_HEADERS_H_
