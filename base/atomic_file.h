// Writes a small file of the process' own so that a reader, or the process after a
// crash, finds either the old contents or the new, never a mix: the text goes to
// "<path>.tmp" in the same folder, is flushed to disk, and is renamed over `path`;
// then the folder itself is flushed, so that the rename survives a power cut.
// "<path>.tmp" is always created anew (O_EXCL) and never through a symbolic link
// (O_NOFOLLOW): whatever was at that name before, a link to another file included, is
// unlinked first, so no one who can write the folder's neighbours steers the write.
// For the exporter's own files only: never a brain's.
//
// Thread-safety: a function of its arguments; two writers of one path race.
#ifndef SCX_BASE_ATOMIC_FILE_H_
#define SCX_BASE_ATOMIC_FILE_H_

#include <string>
#include <string_view>

namespace scx {

// Returns false with a one-line reason in *error (the temporary file removed).
bool WriteFileAtomically(const std::string& path, std::string_view contents, std::string* error);

}  // namespace scx

#endif  // SCX_BASE_ATOMIC_FILE_H_
