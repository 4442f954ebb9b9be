#include "mosquitto_broker.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace robot_edge::test {

using namespace std::chrono_literals;

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t size = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
  ::close(fd);
  return ntohs(a.sin_port);
}

bool PortOpen(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  ::close(fd);
  return ok;
}

MosquittoBroker::MosquittoBroker(const std::string& dir, int port, const std::string& settings)
    : dir_(dir), port_(port) {
  std::ofstream(dir + "/mosquitto.conf") << "listener " << port << " 127.0.0.1\n" << settings;
}

void MosquittoBroker::Start() {
  child_ = std::make_unique<Child>(
      std::vector<std::string>{"/usr/sbin/mosquitto", "-c", dir_ + "/mosquitto.conf"},
      dir_ + "/mosquitto");
  if (!Eventually([&] { return PortOpen(port_); }, 10s)) {
    throw std::runtime_error("mosquitto did not open port " + std::to_string(port_) + ": " +
                             child_->Stderr());
  }
}

int MosquittoBroker::Stop() { return child_->Stop(SIGTERM, 10s); }

}  // namespace robot_edge::test
