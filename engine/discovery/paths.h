// Discovery's rules for paths: how runtime dirs are cleaned, keyed and joined, and how
// a path from a registry instance file or a project root is read. Pure but for RealDir
// and RuntimeKey, which ask the disk, and for "~", expanded with $HOME (ExpandHome).
// Internal to engine/.
#ifndef SCX_ENGINE_DISCOVERY_PATHS_H_
#define SCX_ENGINE_DISCOVERY_PATHS_H_

#include <sys/stat.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace scx {

// Removes trailing '/' but keeps a lone "/".
std::string StripTrailingSlashes(std::string path);

// Expands a leading "~" or "~/" with $HOME ("~user/..." is left as it is).
std::string ExpandHome(const std::string& path);

// The runtime dir as stored in a Brain: "~" expanded, trailing '/' removed.
std::string CleanDir(const std::string& path);

// The key runtime dirs are compared by: CleanDir, then lexically normal ("a/./b",
// "a/x/../b" -> "a/b"). Symlinks are not resolved.
std::string DirKey(const std::string& path);

// A path from a registry instance file. m1nd writes absolute paths; a relative one
// is resolved against the registry folder (so that a registry shipped inside a
// checkout, like examples/registry, works wherever the checkout lives).
std::string ResolveInRegistry(const std::string& registry, const std::string& path);

// The RuntimeKey of a folder stat'ed as `info`: "i<device>:<inode>", in hex.
std::string InodeKey(const struct stat& info);

// `dir` + "/" + `name`, without a second '/' when `dir` ends in one.
std::string JoinPath(const std::string& dir, const std::string& name);

// The form of a project root by which m1nd's brain list dedupes brain folders: m1nd
// writes the canonical root it was given, so lexically normal is enough to compare. A
// view into `root` itself when only trailing slashes differ (most roots: std::filesystem
// is spared them), else into the normal copy appended to `normalized` (whose elements
// never move).
std::string_view RootKeyView(const std::string& root, std::deque<std::string>* normalized);

// ---- Rules that ask the disk

// The real path of a runtime dir: symlinks and ".." resolved, so that aliases of one
// folder get one name. A folder that cannot be resolved (not there yet) keeps its
// lexically normal form.
std::string RealDir(const std::string& path);

// What makes two runtime dirs one: the folder's device and inode (symlinks, ".."
// paths and bind mounts of one folder agree: InodeKey), else the lexically normal
// path ("path " + the path).
std::string RuntimeKey(const std::string& path);

// RuntimeKey, and the folder's owner (uid) in *owner when it could be stat'ed (else
// nullopt): one stat.
std::string RuntimeKey(const std::string& path, std::optional<std::uint32_t>* owner);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_PATHS_H_
