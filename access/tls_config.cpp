#include "access/tls_config.hpp"

namespace robot_edge::access {

TlsFiles TlsFilesOf(const config::TlsConfig& tls) {
  return {tls.certificate_path, tls.private_key_path, tls.client_ca_path};
}

std::shared_ptr<asio::ssl::context> ServerTlsContextOf(const config::TlsConfig& tls,
                                                       const std::string& key,
                                                       std::vector<std::string>* warnings) {
  if (!tls.enabled()) return nullptr;
  const TlsFiles files = TlsFilesOf(tls);
  for (std::string& w : TlsKeyWarnings(files, key)) warnings->push_back(std::move(w));
  return MakeServerTlsContext(files, key);
}

}  // namespace robot_edge::access
