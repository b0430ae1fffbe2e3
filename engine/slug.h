// Slug rules shared by the whole project: the one sanitizer that mints m1nd ids
// (`sk_<slug>_candidate`, `sb_<slug>_...`) and checks them here, plus the identity
// of a brain (display name, else basename of its project root).
#ifndef SCX_ENGINE_SLUG_H_
#define SCX_ENGINE_SLUG_H_

#include <string>
#include <string_view>

namespace scx {

// Lowercases each character (Unicode full mapping), keeps ASCII letters and digits,
// turns every run of other characters (including bytes that are not valid UTF-8)
// into one '_', trims leading and trailing '_', and returns "repo" when nothing is
// left. Only U+0130 (-> "i" + U+0307) and U+212A KELVIN SIGN (-> "k") lowercase
// into ASCII among non-ASCII characters.
std::string SanitizeSlug(std::string_view text);

// `text` without the Unicode white space around it (Rust's str::trim).
std::string_view TrimWhiteSpace(std::string_view text);

// Trims surrounding whitespace, strips trailing '/' and '\', and returns the text
// after the last '/' or '\'; if that is empty, the trimmed root itself.
std::string BasenameOf(std::string_view root);

// display_name when it is non-empty, else BasenameOf(project_root).
std::string ResolveIdentity(std::string_view project_root, std::string_view display_name);

}  // namespace scx

#endif  // SCX_ENGINE_SLUG_H_
