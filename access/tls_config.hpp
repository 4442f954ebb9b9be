// The TLS of a listener as the config states it (config::TlsConfig: api.tls, live.tls), turned
// into access::MakeServerTlsContext's files and context: the one path robot-edged (api.tls, and
// live.tls at --check-config) and robot-edge-live (live.tls) read their certificates by.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "access/tls.hpp"
#include "config/config.hpp"

namespace robot_edge::access {

// The resolved paths of `tls`.
TlsFiles TlsFilesOf(const config::TlsConfig& tls);

// The server context of `tls`, null when it is not enabled; `warnings` gets a key readable by
// others. Throws std::runtime_error naming `key` ("api.tls", "live.tls") and the file: missing,
// not PEM, a key that does not match its certificate.
std::shared_ptr<asio::ssl::context> ServerTlsContextOf(const config::TlsConfig& tls,
                                                       const std::string& key,
                                                       std::vector<std::string>* warnings);

}  // namespace robot_edge::access
