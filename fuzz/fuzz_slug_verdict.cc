// libFuzzer target: the slug rules and the coherence verdict (engine/slug.h,
// engine/coherence.h). The input is split at NUL bytes into project_root,
// display_name, skeleton_id and block ids.
// Invariants: a slug is non-empty, lowercase ASCII letters, digits and single '_'
// inside; sanitizing is idempotent; a store minted from the brain's own slug is Ok; a
// skeleton or a block that does not carry the slug is a Mismatch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/coherence.h"
#include "engine/slug.h"
#include "fuzz/fuzz_check.h"

namespace {

bool IsSlug(const std::string& slug) {
  if (slug.empty() || slug.front() == '_' || slug.back() == '_') return false;
  for (size_t i = 0; i < slug.size(); ++i) {
    const char c = slug[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok || (c == '_' && i > 0 && slug[i - 1] == '_')) return false;
  }
  return true;
}

std::vector<std::string> SplitAtNul(std::string_view input) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t end; (end = input.find('\0', begin)) != std::string_view::npos; begin = end + 1) {
    parts.emplace_back(input.substr(begin, end - begin));
  }
  parts.emplace_back(input.substr(begin));
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> parts =
      SplitAtNul(std::string_view(reinterpret_cast<const char*>(data), size));
  parts.resize(std::max<size_t>(parts.size(), 3));
  const std::string& project_root = parts[0];
  const std::string& display_name = parts[1];

  for (const std::string& part : parts) {
    const std::string slug = scx::SanitizeSlug(part);
    SCX_FUZZ_CHECK(IsSlug(slug));
    SCX_FUZZ_CHECK(scx::SanitizeSlug(slug) == slug);
  }
  const std::string expected = scx::SanitizeSlug(scx::ResolveIdentity(project_root, display_name));

  scx::ServedSkeleton served{parts[2], std::vector<std::string>(parts.begin() + 3, parts.end())};
  const std::optional<scx::Coherence> verdict =
      scx::CheckCoherence(project_root, display_name, &served);
  SCX_FUZZ_CHECK(verdict.has_value());
  SCX_FUZZ_CHECK(verdict->expected_slug == expected);
  SCX_FUZZ_CHECK(IsSlug(verdict->found_slug) || verdict->found_slug.empty() ||
                 verdict->status == scx::CoherenceStatus::kMismatch);
  const bool skeleton_ok = served.skeleton_id == "sk_" + expected ||
                           served.skeleton_id.rfind("sk_" + expected + "_", 0) == 0;
  bool blocks_ok = true;
  for (const std::string& block : served.block_ids) {
    blocks_ok = blocks_ok && block.rfind("sb_" + expected + "_", 0) == 0;
  }
  SCX_FUZZ_CHECK((verdict->status == scx::CoherenceStatus::kOk) == (skeleton_ok && blocks_ok));
  if (verdict->status == scx::CoherenceStatus::kOk) {
    SCX_FUZZ_CHECK(verdict->found_slug == expected && verdict->reason.empty());
  } else {
    SCX_FUZZ_CHECK(!verdict->reason.empty());
  }

  // What m1nd mints for this brain is always its own.
  scx::ServedSkeleton own{"sk_" + expected + "_candidate", {"sb_" + expected + "_core_0a1b2c3d"}};
  const std::optional<scx::Coherence> own_verdict =
      scx::CheckCoherence(project_root, display_name, &own);
  SCX_FUZZ_CHECK(own_verdict && own_verdict->status == scx::CoherenceStatus::kOk);
  SCX_FUZZ_CHECK(!scx::CheckCoherence(project_root, display_name, nullptr).has_value());
  return 0;
}
