// The Content-Security-Policy source expression that allows one inline <style> or
// <script> and nothing else (CSP Level 2 hash sources): a page's policy lists the
// hashes of the elements it embeds instead of 'unsafe-inline'.
#ifndef SCX_EXPORTER_HTTP_INLINE_SOURCE_HASH_H_
#define SCX_EXPORTER_HTTP_INLINE_SOURCE_HASH_H_

#include <string>
#include <string_view>

namespace scx {

// "'sha256-B64'": B64 is the base64 of the SHA-256 of `text`, the element's content
// exactly as served (between <script> and </script>).
std::string InlineSourceHash(std::string_view text);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_INLINE_SOURCE_HASH_H_
