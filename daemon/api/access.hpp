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
//   loopback address when api.allow_loopback_without_token says so. A wrong token makes its
//   address wait (access::WrongTokenDelay: 250 ms, doubling to 30 s): until then its Hellos are
//   refused without their token being compared, and the listener closes its new connections at
//   once. Token files hold access::kMinApiTokenBytes at least.
// Every refusal says why, without revealing a token.
//
// Threads: built at start-up (it throws there); then used by the API thread only (Refusal
// records wrong tokens in the shared WrongTokenDelay, which the listener reads).
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access/door_limits.hpp"
#include "access/tls.hpp"
#include "config/config.hpp"
#include "daemon/api/peer.hpp"

namespace robot_edge::daemon {

// For --check-config: every token file the config names (api.access.<name>.token_file,
// live.token_file, live.operator_token_file) that cannot be found, or that TokenFileExposure
// warns about. Reads no token.
std::vector<std::string> TokenFileWarnings(const config::Config& config);

// For --check-config: throws std::runtime_error, as AccessPolicy::Load would at start, for an
// api.access.<name>.token_file that is missing, cannot be read, is not a regular file, is empty
// or shorter than access::kMinApiTokenBytes: a check that passes a file the start refuses would
// let a restart take the robot's daemon down. Reads the tokens and forgets them.
void CheckApiTokenFiles(const config::Config& config);

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
  // token files. Throws std::runtime_error naming the file on a missing, unreadable or empty
  // one, or one shorter than access::kMinApiTokenBytes (naming the minimum).
  static AccessPolicy Load(const config::Config& config, uid_t self_uid);

  AccessPolicy(std::vector<Grant> grants, uid_t self_uid, bool allow_loopback_without_token);

  // nullopt when `peer` may connect as `controller` ("" = observer) with `token`; else why not.
  // Over TCP a wrong token is counted in wrong_tokens() at `now` (the first overload reads the
  // steady clock) under WaitKey(peer's address, controller): while that waits, a Hello from the
  // address as that controller is refused without its token compared. The same address as
  // another controller is not slowed: a guesser for 'cloud' behind a shared address (a NAT, a
  // local user on loopback) does not keep 'ble' out.
  std::optional<std::string> Refusal(std::string_view controller, const Peer& peer,
                                     std::string_view token) const;
  std::optional<std::string> Refusal(std::string_view controller, const Peer& peer,
                                     std::string_view token,
                                     access::WrongTokenDelay::Clock::time_point now) const;

  // The (address, controller) pairs that sent a wrong token, keyed by WaitKey. Never null.
  const std::shared_ptr<access::WrongTokenDelay>& wrong_tokens() const { return wrong_tokens_; }
  static std::string WaitKey(std::string_view address, std::string_view controller) {
    return std::string(address) + " as '" + std::string(controller) + "'";
  }

  // Start-up warnings: unknown user or group names, token files others can read.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  const Grant* Find(std::string_view controller) const;
  std::optional<std::string> UnixRefusal(std::string_view controller, const Peer& peer) const;
  std::optional<std::string> TcpRefusal(std::string_view controller, const Peer& peer,
                                        std::string_view token,
                                        access::WrongTokenDelay::Clock::time_point now) const;

  std::vector<Grant> grants_;
  uid_t self_uid_;
  bool allow_loopback_without_token_;
  std::vector<std::string> warnings_;
  // Written by Refusal (const: the grants do not change; this record of peers does).
  std::shared_ptr<access::WrongTokenDelay> wrong_tokens_ =
      std::make_shared<access::WrongTokenDelay>();
};

}  // namespace robot_edge::daemon
