// libFuzzer target: the slug rules and the coherence verdict (engine/slug.h,
// engine/coherence.h). The input is split at NUL bytes into project_root,
// display_name, skeleton_id and block ids.
// Invariants: a slug is non-empty, lowercase ASCII letters, digits and single '_'
// inside; sanitizing is idempotent; a store minted from the brain's own slug is Ok; a
// skeleton or a block that does not carry the slug is a Mismatch; a store's digest
// gives the same verdict as its block ids, for the brain's slug and for every slug the
// skeleton id can carry (empty, with '_', any bytes).
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

// The list-based and the digest-based verdicts agree field by field.
void CheckSameVerdict(const std::string& expected, const scx::ServedSkeleton& served,
                      const scx::SkeletonDigest& digest) {
  const scx::Coherence from_list = scx::CoherenceForSlug(expected, served);
  const scx::Coherence from_digest = scx::CoherenceForSlug(expected, digest);
  SCX_FUZZ_CHECK(from_list.status == from_digest.status);
  SCX_FUZZ_CHECK(from_list.expected_slug == from_digest.expected_slug);
  SCX_FUZZ_CHECK(from_list.found_slug == from_digest.found_slug);
  SCX_FUZZ_CHECK(from_list.reason == from_digest.reason);
}

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

  // The digest: same verdict for this identity and for every candidate slug, and for
  // the same block ids under a skeleton that carries this brain's slug.
  const scx::SkeletonDigest digest = scx::DigestOf(served);
  const std::optional<scx::Coherence> digest_verdict =
      scx::CheckCoherence(project_root, display_name, &digest);
  SCX_FUZZ_CHECK(digest_verdict && digest_verdict->reason == verdict->reason &&
                 digest_verdict->status == verdict->status);
  SCX_FUZZ_CHECK(digest.offenders.size() <= served.block_ids.size());
  if (served.skeleton_id.rfind("sk_", 0) == 0) {
    const std::string rest = served.skeleton_id.substr(3);
    for (size_t n = 0; n <= rest.size() && n < 64; ++n) {
      CheckSameVerdict(rest.substr(0, n), served, digest);
    }
  }
  for (const std::string& skeleton_id : {"sk_" + expected, "sk_" + expected + "_candidate"}) {
    const scx::ServedSkeleton carried{skeleton_id, served.block_ids};
    CheckSameVerdict(expected, carried, scx::DigestOf(carried));
  }

  // What m1nd mints for this brain is always its own.
  scx::ServedSkeleton own{"sk_" + expected + "_candidate", {"sb_" + expected + "_core_0a1b2c3d"}};
  const std::optional<scx::Coherence> own_verdict =
      scx::CheckCoherence(project_root, display_name, &own);
  SCX_FUZZ_CHECK(own_verdict && own_verdict->status == scx::CoherenceStatus::kOk);
  const scx::SkeletonDigest* no_store = nullptr;
  SCX_FUZZ_CHECK(!scx::CheckCoherence(project_root, display_name, no_store).has_value());
  return 0;
}
