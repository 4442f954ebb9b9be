// Tokens: how the client API (api.access.<name>.token_file) and the live view (live.token_file,
// live.operator_token_file) compare and read them. Tokens are never logged, and no message here
// contains one.
//
// Threads: any. ReadTokenFile reads a file (start-up only); TokensEqual is pure.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace robot_edge::access {

// Equal contents, in a time that depends on the two lengths only (never on where the first
// difference is).
bool TokensEqual(std::string_view presented, std::string_view expected);

// The shortest token the client API accepts in a token file (api.access.<name>.token_file), in
// bytes after trailing whitespace is dropped: 16 random bytes cannot be guessed over a network,
// however many tries (and WrongTokenDelay slows the tries).
inline constexpr std::size_t kMinApiTokenBytes = 16;

// The largest token file read: a token is tens of bytes; anything longer is not a token file.
inline constexpr std::size_t kMaxTokenFileBytes = 4096;

// `text` without its trailing whitespace (spaces, tabs, line ends): how every token file is read
// (ReadTokenFile, and the tools' --token-file, which also accepts a pipe).
std::string TrimmedToken(std::string text);

// A token from `path` (TrimmedToken). Throws std::runtime_error naming `key` (the
// config key that gave the path) when it cannot be read, is not a regular file (a FIFO would
// block the start forever, /dev/zero would fill memory: it is opened non-blocking and checked
// before any read), is larger than kMaxTokenFileBytes, is empty, or is shorter than `min_bytes`
// (the message names the minimum, never the token); warns (TokenFileExposure) when anyone but its
// owner may read it.
std::string ReadTokenFile(const std::string& key, const std::string& path,
                          std::vector<std::string>* warnings, std::size_t min_bytes = 1);

// A token file must be readable by robot-edged's user only. nullopt when `mode` (st_mode) grants
// nothing to group or others; else a warning naming `key`, the file, who else can read or write
// it, and the fix (chmod 0600, owned by robot-edged's user). Warned, not refused: a daemon that
// will not start leaves the robot without its DAMP-on-fault duties to a config mistake the
// operator can fix at once.
std::optional<std::string> TokenFileExposure(const std::string& key, const std::string& path,
                                             mode_t mode);

}  // namespace robot_edge::access
