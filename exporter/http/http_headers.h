// Small parsers for HTTP request header values.
//
// Thread-safety: pure functions.
#ifndef SCX_EXPORTER_HTTP_HTTP_HEADERS_H_
#define SCX_EXPORTER_HTTP_HTTP_HEADERS_H_

#include <string>
#include <vector>

namespace scx {

// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
std::string TrimHttpSpace(const std::string& text);

// True when one Accept-Encoding header value lists "gzip" (any case) with a q-value
// above 0.
bool AcceptEncodingAllowsGzip(const std::string& accept_encoding);

// True when the Content-Length values of one request (one per field, in order) are not
// all the same once trimmed. Go's net/http refuses such a request (two lengths are a
// request smuggling vector) and takes equal ones as one.
bool ContentLengthsDiffer(const std::vector<std::string>& values);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_HTTP_HEADERS_H_
