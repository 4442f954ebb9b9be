#include "client/tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "client/client.hpp"

namespace robot_edge::client {

struct TlsChannel::Handles {
  SSL_CTX* ctx = nullptr;
  SSL* ssl = nullptr;
  ~Handles() {
    if (ssl != nullptr) ::SSL_free(ssl);
    if (ctx != nullptr) ::SSL_CTX_free(ctx);
  }
};

namespace {

// Holds SIGPIPE on this thread while OpenSSL writes into the socket, and swallows one the write
// raised: a peer that closed its end (a door that turned the client away) is EPIPE, an error
// code, never the death of the program linking this library. OpenSSL's socket BIO writes
// without MSG_NOSIGNAL; the plain path (client.cpp) passes it.
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeHeld() {
    const int saved = errno;
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) == -1 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    errno = saved;
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;

 private:
  sigset_t pipe_{}, old_{};
  bool was_pending_ = false;
};

std::string LastError() {
  std::string text;
  for (unsigned long code = 0; (code = ::ERR_get_error()) != 0;) {
    char buffer[256];
    ::ERR_error_string_n(code, buffer, sizeof(buffer));
    text = buffer;
  }
  return text;
}

bool IsIpAddress(const std::string& host) {
  unsigned char buffer[16];
  return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

[[noreturn]] void Refuse(const std::string& where, const std::string& why) {
  throw ClientError(ErrorKind::kConnect, "TLS with " + where + ": " + why);
}

// Why the handshake failed, in the words the brief's user needs.
[[noreturn]] void ExplainFailure(SSL* ssl, int ret, const std::string& where,
                                 const std::string& name) {
  const long verify = ::SSL_get_verify_result(ssl);
  const unsigned long code = ::ERR_peek_last_error();
  const std::string detail = LastError();
  if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH) {
    Refuse(where, "name mismatch: the daemon's certificate is not for '" + name + "'");
  }
  if (verify != X509_V_OK) {
    Refuse(where, std::string("certificate not trusted: ") +
                      ::X509_verify_cert_error_string(verify) +
                      " (is --tls-ca the CA that signed the daemon's api.tls.certificate?)");
  }
  if (ERR_GET_REASON(code) == SSL_R_WRONG_VERSION_NUMBER ||
      ERR_GET_REASON(code) == SSL_R_PACKET_LENGTH_TOO_LONG) {
    Refuse(where, "the daemon does not speak TLS there (api.tls is not set?)");
  }
  if (::SSL_get_error(ssl, ret) == SSL_ERROR_SYSCALL ||
      ::SSL_get_error(ssl, ret) == SSL_ERROR_ZERO_RETURN) {
    Refuse(where,
           "the daemon closed the connection during the handshake (it does not speak TLS, "
           "or wants a client certificate: api.tls.client_ca)");
  }
  Refuse(where, "handshake failed: " + detail);
}

}  // namespace

std::unique_ptr<TlsChannel> TlsChannel::Handshake(int fd, const TlsOptions& options,
                                                  const std::string& host, const std::string& where,
                                                  std::chrono::steady_clock::time_point deadline) {
  std::unique_ptr<TlsChannel> channel(new TlsChannel());
  channel->handles_ = std::make_unique<Handles>();
  Handles& h = *channel->handles_;
  ::ERR_clear_error();
  h.ctx = ::SSL_CTX_new(::TLS_client_method());
  if (h.ctx == nullptr) Refuse(where, "cannot create a TLS context: " + LastError());
  ::SSL_CTX_set_min_proto_version(h.ctx, TLS1_2_VERSION);
  if (options.ca_file.empty()) Refuse(where, "no CA file to check the daemon's certificate");
  if (::SSL_CTX_load_verify_locations(h.ctx, options.ca_file.c_str(), nullptr) != 1) {
    Refuse(where, "cannot read the CA file " + options.ca_file + ": " + LastError());
  }
  if (!options.certificate.empty()) {
    if (::SSL_CTX_use_certificate_chain_file(h.ctx, options.certificate.c_str()) != 1 ||
        ::SSL_CTX_use_PrivateKey_file(h.ctx, options.private_key.c_str(), SSL_FILETYPE_PEM) != 1 ||
        ::SSL_CTX_check_private_key(h.ctx) != 1) {
      Refuse(where, "cannot use the client certificate " + options.certificate + " / key " +
                        options.private_key + ": " + LastError());
    }
  }
  ::SSL_CTX_set_verify(h.ctx, SSL_VERIFY_PEER, nullptr);
  h.ssl = ::SSL_new(h.ctx);
  const std::string name = options.server_name.empty() ? host : options.server_name;
  if (IsIpAddress(name)) {
    ::X509_VERIFY_PARAM_set1_ip_asc(::SSL_get0_param(h.ssl), name.c_str());
  } else {
    ::SSL_set_tlsext_host_name(h.ssl, name.c_str());
    ::SSL_set1_host(h.ssl, name.c_str());
  }
  ::SSL_set_fd(h.ssl, fd);
  for (;;) {
    const SigpipeHeld held;
    const int ret = ::SSL_connect(h.ssl);
    if (ret == 1) return channel;
    const int error = ::SSL_get_error(h.ssl, ret);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      ExplainFailure(h.ssl, ret, where, name);
    }
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
            .count();
    pollfd p{fd, static_cast<short>(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
    const int n = ::poll(&p, 1, left > 0 ? static_cast<int>(left) : 0);
    if (n == 0) Refuse(where, "no TLS handshake within the connect timeout");
    if (n < 0 && errno != EINTR)
      Refuse(where, std::string("poll() failed: ") + std::strerror(errno));
  }
}

TlsChannel::~TlsChannel() = default;

TlsChannel::Io TlsChannel::Result(int ret, std::size_t done, std::size_t* n) {
  if (ret > 0) {
    *n = done;
    return Io::kDone;
  }
  switch (::SSL_get_error(handles_->ssl, ret)) {
    case SSL_ERROR_WANT_READ: return Io::kWantRead;
    case SSL_ERROR_WANT_WRITE: return Io::kWantWrite;
    case SSL_ERROR_ZERO_RETURN: return Io::kClosed;
    case SSL_ERROR_SYSCALL:
      if (errno == 0 || errno == ECONNRESET || errno == EPIPE) return Io::kClosed;
      error_ = std::strerror(errno);
      return Io::kError;
    default: {
      const std::string detail = LastError();
      error_ = "TLS error: " + (detail.empty() ? std::string("unknown") : detail);
      return Io::kError;
    }
  }
}

TlsChannel::Io TlsChannel::Write(const void* data, std::size_t size, std::size_t* n) {
  ::ERR_clear_error();
  errno = 0;
  std::size_t done = 0;
  const SigpipeHeld held;
  const int ret = ::SSL_write_ex(handles_->ssl, data, size, &done);
  return Result(ret, done, n);
}

TlsChannel::Io TlsChannel::Read(void* data, std::size_t size, std::size_t* n) {
  ::ERR_clear_error();
  errno = 0;
  std::size_t done = 0;
  const SigpipeHeld held;  // a read may send an alert
  const int ret = ::SSL_read_ex(handles_->ssl, data, size, &done);
  return Result(ret, done, n);
}

}  // namespace robot_edge::client
