// Replacing a file so that a reader, a crash or a power cut sees either the old content or the
// new, never a mix or an empty file: a fresh temporary file beside it (never an existing one,
// never through a symlink), written, fsync'ed, renamed over the target, then the directory
// fsync'ed so that the rename itself is on disk.
//
// Threads: any thread but the control thread (it allocates and waits on the disk).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

namespace robot_edge::daemon {

// Writes `text` to `path` with permissions `mode`. Returns "" on success, else why not (naming
// the file); the target is then untouched and no temporary file is left behind.
std::string WriteFileAtomically(const std::string& path, std::string_view text, mode_t mode);

}  // namespace robot_edge::daemon
