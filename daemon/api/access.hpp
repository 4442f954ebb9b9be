// Who may connect as which controller (config api.access), checked on every Hello: the names of
// api.controllers, and "observer" (a Hello with no controller).
//
//   Unix socket (identity from SO_PEERCRED, never from the Hello): uid 0 and robot-edged's own uid
//   may be every controller (they can drive the buses directly anyway); anyone else one whose
//   users name them or whose groups hold their primary or a supplementary group. A controller
//   with no entry is refused; observing without an `observer` entry is open to whoever can open
//   the socket (its file mode and directory decide that).
//   TCP: the Hello's token must equal the controller's own token (constant-time comparison;
//   tokens are never logged). One without a token cannot connect over TCP, except from a
//   loopback address when api.allow_loopback_without_token says so.
// Every refusal says why, without revealing a token.
//
// Threads: built at start-up (it throws there); then read by the API thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access/tls.hpp"
#include "config/config.hpp"
#include "daemon/api/peer.hpp"

namespace robot_edge::daemon {

// For --check-config: every token file the config names (api.access.<name>.token_file,
// live.token_file, live.operator_token_file) that cannot be found, or that TokenFileExposure
// warns about. Reads no token.
std::vector<std::string> TokenFileWarnings(const config::Config& config);

// The API's TLS context (api.tls), null without api.tls; `warnings` gets a key readable by
// others. Throws std::runtime_error naming the key and file (missing, not PEM, key mismatch):
// at start-up and at --check-config.
std::shared_ptr<asio::ssl::context> ApiTlsContext(const config::Config& config,
                                                  std::vector<std::string>* warnings);

class AccessPolicy {
 public:
  // One controller's (or observer's) grant, resolved.
  struct Grant {
    std::string name;
    std::vector<uid_t> users;
    std::vector<gid_t> groups;
    std::string token;  // "" = none: it cannot connect over TCP
  };

  // Resolves the user and group names (an unknown one grants nothing: a warning) and reads the
  // token files. Throws std::runtime_error naming the file on a missing, unreadable or empty one.
  static AccessPolicy Load(const config::Config& config, uid_t self_uid);

  AccessPolicy(std::vector<Grant> grants, uid_t self_uid, bool allow_loopback_without_token);

  // nullopt when `peer` may connect as `controller` ("" = observer) with `token`; else why not.
  std::optional<std::string> Refusal(std::string_view controller, const Peer& peer,
                                     std::string_view token) const;

  // Start-up warnings: unknown user or group names, token files others can read.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  const Grant* Find(std::string_view controller) const;
  std::optional<std::string> UnixRefusal(std::string_view controller, const Peer& peer) const;
  std::optional<std::string> TcpRefusal(std::string_view controller, const Peer& peer,
                                        std::string_view token) const;

  std::vector<Grant> grants_;
  uid_t self_uid_;
  bool allow_loopback_without_token_;
  std::vector<std::string> warnings_;
};

}  // namespace robot_edge::daemon
