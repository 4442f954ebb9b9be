// TLS on the project's TCP listeners (the client API's api.tls, the live view's live.tls): the
// server's context, built from PEM files, and the checks --check-config runs on them.
//
// Contract: TLS 1.2 at least (1.3 preferred by OpenSSL's negotiation), no compression, no
// renegotiation; with `client_ca_path` set a client must present a certificate signed by it.
// Threads: built at start-up; the context is then used by the one thread that runs its io_context.
#pragma once

#include <asio/ssl/context.hpp>
#include <memory>
#include <string>
#include <vector>

namespace robot_edge::access {

struct TlsFiles {
  std::string certificate_path;  // PEM certificate, or chain with the server's first
  std::string private_key_path;  // PEM private key of that certificate
  std::string client_ca_path;    // PEM CA(s) that sign client certificates; "" = none asked
};

// Throws std::runtime_error naming `key` (e.g. "api.tls") and the file: missing, unreadable,
// not PEM, or a key that does not match the certificate.
std::shared_ptr<asio::ssl::context> MakeServerTlsContext(const TlsFiles& files,
                                                         const std::string& key);

// Warnings for a private key that others than its owner can read (like token files).
std::vector<std::string> TlsKeyWarnings(const TlsFiles& files, const std::string& key);

// The last OpenSSL error of this thread as text ("" when none), and the queue cleared.
std::string LastOpenSslError();

}  // namespace robot_edge::access
