#include "access/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "access/tokens.hpp"

namespace robot_edge::access {
namespace {

void CheckReadable(const std::string& what, const std::string& path) {
  if (::access(path.c_str(), R_OK) != 0) {
    throw std::runtime_error(what + ": cannot read " + path + ": " + std::strerror(errno));
  }
}

}  // namespace

std::string LastOpenSslError() {
  std::string text;
  unsigned long code = 0;
  while ((code = ::ERR_get_error()) != 0) {
    char buffer[256];
    ::ERR_error_string_n(code, buffer, sizeof(buffer));
    text = buffer;  // the last one is the most specific
  }
  return text;
}

std::shared_ptr<asio::ssl::context> MakeServerTlsContext(const TlsFiles& files,
                                                         const std::string& key) {
  CheckReadable(key + ".certificate", files.certificate_path);
  CheckReadable(key + ".private_key", files.private_key_path);
  if (!files.client_ca_path.empty()) CheckReadable(key + ".client_ca", files.client_ca_path);
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  SSL_CTX* ctx = context->native_handle();
  ::SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  ::SSL_CTX_set_options(
      ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  ::ERR_clear_error();
  if (::SSL_CTX_use_certificate_chain_file(ctx, files.certificate_path.c_str()) != 1) {
    throw std::runtime_error(key + ".certificate: " + files.certificate_path +
                             " is not a PEM certificate: " + LastOpenSslError());
  }
  if (::SSL_CTX_use_PrivateKey_file(ctx, files.private_key_path.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(::ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ::ERR_clear_error();
      throw std::runtime_error(key + ".private_key: " + files.private_key_path +
                               " does not match the certificate " + files.certificate_path);
    }
    throw std::runtime_error(key + ".private_key: " + files.private_key_path +
                             " is not a PEM private key: " + LastOpenSslError());
  }
  if (::SSL_CTX_check_private_key(ctx) != 1) {
    throw std::runtime_error(key + ".private_key: " + files.private_key_path +
                             " does not match the certificate " + files.certificate_path);
  }
  if (!files.client_ca_path.empty()) {
    if (::SSL_CTX_load_verify_locations(ctx, files.client_ca_path.c_str(), nullptr) != 1) {
      throw std::runtime_error(key + ".client_ca: " + files.client_ca_path +
                               " is not a PEM certificate: " + LastOpenSslError());
    }
    ::SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return context;
}

std::vector<std::string> TlsKeyWarnings(const TlsFiles& files, const std::string& key) {
  std::vector<std::string> warnings;
  struct stat st {};
  if (!files.private_key_path.empty() && ::stat(files.private_key_path.c_str(), &st) == 0) {
    if (auto w = TokenFileExposure(key + ".private_key", files.private_key_path, st.st_mode)) {
      warnings.push_back(*w);
    }
  }
  return warnings;
}

}  // namespace robot_edge::access
