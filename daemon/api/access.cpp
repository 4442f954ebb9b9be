#include "daemon/api/access.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "access/tls_config.hpp"
#include "access/tokens.hpp"

namespace robot_edge::daemon {

std::vector<std::string> TokenFileWarnings(const config::Config& config) {
  struct TokenFile {
    std::string key, path;
    const char* if_missing;
  };
  std::vector<TokenFile> files;
  for (const config::ClientAccess& a : config.api.access) {
    if (!a.token_file.empty()) {  // a missing one is CheckApiTokenFiles' error
      files.push_back({"api.access." + a.name + ".token_file", a.token_path, ""});
    }
  }
  const config::LiveConfig& live = config.live;
  if (!live.address.empty() && !live.token_path.empty()) {
    files.push_back({"live.token_file", live.token_path, "the live view will not open"});
  }
  if (!live.address.empty() && !live.operator_token_path.empty()) {
    files.push_back(
        {"live.operator_token_file", live.operator_token_path, "the live view will not open"});
  }
  std::vector<std::string> warnings;
  for (const auto& [key, path, if_missing] : files) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (*if_missing != '\0') {
        warnings.push_back(key + ": " + path + ": " + std::strerror(errno) + ": " + if_missing);
      }
    } else if (auto w = access::TokenFileExposure(key, path, st.st_mode)) {
      warnings.push_back(*w);
    }
  }
  return warnings;
}

void CheckApiTokenFiles(const config::Config& config) {
  for (const config::ClientAccess& a : config.api.access) {
    if (a.token_file.empty()) continue;
    std::vector<std::string> ignored;  // TokenFileWarnings gives them
    access::ReadTokenFile("api.access." + a.name + ".token_file", a.token_path, &ignored,
                          access::kMinApiTokenBytes);
  }
}

std::shared_ptr<asio::ssl::context> ApiTlsContext(const config::Config& config,
                                                  std::vector<std::string>* warnings) {
  if (config.api.tcp.empty()) return nullptr;
  return access::ServerTlsContextOf(config.api.tls, "api.tls", warnings);
}

namespace {

std::string NameOf(std::string_view controller) {
  return controller.empty() ? std::string(config::kObserver) : std::string(controller);
}

}  // namespace

AccessPolicy AccessPolicy::Load(const config::Config& config, uid_t self_uid) {
  std::vector<Grant> grants;
  std::vector<std::string> warnings;
  for (const config::ClientAccess& a : config.api.access) {
    Grant g;
    g.name = a.name;
    for (const std::string& name : a.users) {
      if (const passwd* pw = ::getpwnam(name.c_str())) {
        g.users.push_back(pw->pw_uid);
      } else {
        warnings.push_back("api.access." + a.name + ".users: no user '" + name +
                           "' on this system: it grants nothing");
      }
    }
    for (const std::string& name : a.groups) {
      if (const group* gr = ::getgrnam(name.c_str())) {
        g.groups.push_back(gr->gr_gid);
      } else {
        warnings.push_back("api.access." + a.name + ".groups: no group '" + name +
                           "' on this system: it grants nothing");
      }
    }
    if (!a.token_file.empty()) {
      g.token = access::ReadTokenFile("api.access." + a.name + ".token_file", a.token_path,
                                      &warnings, access::kMinApiTokenBytes);
    }
    grants.push_back(std::move(g));
  }
  AccessPolicy policy(std::move(grants), self_uid, config.api.allow_loopback_without_token);
  policy.warnings_ = std::move(warnings);
  return policy;
}

AccessPolicy::AccessPolicy(std::vector<Grant> grants, uid_t self_uid,
                           bool allow_loopback_without_token)
    : grants_(std::move(grants)),
      self_uid_(self_uid),
      allow_loopback_without_token_(allow_loopback_without_token) {}

const AccessPolicy::Grant* AccessPolicy::Find(std::string_view controller) const {
  const std::string name = NameOf(controller);
  for (const Grant& g : grants_) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::optional<std::string> AccessPolicy::Refusal(std::string_view controller, const Peer& peer,
                                                 std::string_view token) const {
  return Refusal(controller, peer, token, access::WrongTokenDelay::Clock::now());
}

std::optional<std::string> AccessPolicy::Refusal(
    std::string_view controller, const Peer& peer, std::string_view token,
    access::WrongTokenDelay::Clock::time_point now) const {
  return peer.transport == Transport::kUnix ? UnixRefusal(controller, peer)
                                            : TcpRefusal(controller, peer, token, now);
}

std::optional<std::string> AccessPolicy::UnixRefusal(std::string_view controller,
                                                     const Peer& peer) const {
  const std::string name = NameOf(controller);
  if (!peer.has_credentials) return "the connection's credentials cannot be read";
  if (peer.uid == 0 || peer.uid == self_uid_) return std::nullopt;
  const Grant* g = Find(controller);
  if (g == nullptr) {
    if (controller.empty()) return std::nullopt;  // observing: the socket's permissions decide
    return "uid " + std::to_string(peer.uid) + " may not connect as '" + name + "' (api.access." +
           name + " grants it to nobody)";
  }
  const auto has = [](const auto& list, auto id) {
    return std::find(list.begin(), list.end(), id) != list.end();
  };
  if (has(g->users, peer.uid) || has(g->groups, peer.gid)) return std::nullopt;
  for (gid_t gid : peer.groups) {
    if (has(g->groups, gid)) return std::nullopt;
  }
  return "uid " + std::to_string(peer.uid) + " may not connect as '" + name +
         "' (not in api.access." + name + ".users or .groups)";
}

// A peer that waits after a wrong token is refused before its token is compared: guessing goes no
// faster than WrongTokenDelay allows, and a right token sent during the wait does not count.
std::optional<std::string> AccessPolicy::TcpRefusal(
    std::string_view controller, const Peer& peer, std::string_view token,
    access::WrongTokenDelay::Clock::time_point now) const {
  const std::string name = NameOf(controller);
  const std::string key = WaitKey(peer.address, name);
  if (const auto left = wrong_tokens_->Left(key, now)) {
    return "a wrong token for '" + name + "' came from " + peer.address + ": its Hellos as '" +
           name + "' are refused for " + std::to_string(left->count()) + " ms more";
  }
  const Grant* g = Find(controller);
  const bool has_token = g != nullptr && !g->token.empty();
  if (has_token && access::TokensEqual(token, g->token)) {
    wrong_tokens_->Right(key);
    return std::nullopt;
  }
  if (peer.loopback && allow_loopback_without_token_) return std::nullopt;
  if (!has_token) {
    return "'" + name + "' cannot connect over TCP (api.access." + name + ".token_file is not set)";
  }
  if (token.empty()) return "'" + name + "' needs its token over TCP";
  wrong_tokens_->Wrong(key, now);  // the reason stays the one clients know
  return "invalid token for '" + name + "'";
}

}  // namespace robot_edge::daemon
