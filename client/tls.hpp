// TLS for Client::ConnectTcp (robot-edged's api.tls): OpenSSL over the client's connected,
// non-blocking socket. The daemon's certificate must be signed by `ca_file` and name the host
// (DNS name or IP address) the client asked for; a client certificate is shown when given
// (api.tls.client_ca). TLS 1.2 at least.
//
// Not thread-safe, like Client.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace robot_edge::client {

struct TlsOptions {
  std::string ca_file;      // PEM CA(s) that signed the daemon's certificate (required)
  std::string server_name;  // checked against the certificate; "" = the host connected to
  std::string certificate;  // PEM client certificate (mutual TLS); "" = none
  std::string private_key;  // PEM key of `certificate`
};

class TlsChannel {
 public:
  enum class Io { kDone, kWantRead, kWantWrite, kClosed, kError };

  // Handshakes on `fd` (connected, non-blocking; the caller keeps owning it) before `deadline`.
  // Throws ClientError(kConnect) naming the cause: a CA file it cannot read, a certificate not
  // signed by the CA, a certificate for another name, a daemon that does not speak TLS, a
  // timeout.
  static std::unique_ptr<TlsChannel> Handshake(int fd, const TlsOptions& options,
                                               const std::string& host, const std::string& where,
                                               std::chrono::steady_clock::time_point deadline);
  ~TlsChannel();
  TlsChannel(const TlsChannel&) = delete;
  TlsChannel& operator=(const TlsChannel&) = delete;

  // Like send() / recv() on a non-blocking socket: kDone with *n bytes; kWantRead / kWantWrite:
  // poll for that, then call again with the same arguments; kClosed: the daemon closed; kError:
  // error() says what.
  Io Write(const void* data, std::size_t size, std::size_t* n);
  Io Read(void* data, std::size_t size, std::size_t* n);
  const std::string& error() const { return error_; }

 private:
  TlsChannel() = default;
  Io Result(int ret, std::size_t done, std::size_t* n);

  struct Handles;
  std::unique_ptr<Handles> handles_;
  std::string error_;
};

}  // namespace robot_edge::client
