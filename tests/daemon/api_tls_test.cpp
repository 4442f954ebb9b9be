// The API's TCP listener with api.tls, against the real client (client/client.hpp) and a
// throwaway PKI (tests/uplink/make_test_pki.sh: ca, server for localhost / 127.0.0.1, a client
// certificate "robot", and "other", an unrelated CA). The hub and listener run on an API thread
// of their own, as in the daemon; the test is the client.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <asio/executor_work_guard.hpp>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "access/tls.hpp"
#include "access/tls_config.hpp"
#include "client/client.hpp"
#include "client/tls.hpp"
#include "daemon/api/access.hpp"
#include "daemon/api/hub.hpp"
#include "daemon/api/listener.hpp"

namespace robot_edge::daemon {
namespace {

using namespace std::chrono_literals;
using client::Client;
using client::ClientError;
using client::TlsOptions;

constexpr const char* kToken = "tls-test-token-7f3a9c";

// The PKI, made once per test program and removed at its exit.
std::string Pki() {
  struct Dir {
    std::string path = testing::TempDir() + "api_tls_pki_" + std::to_string(::getpid());
    Dir() {
      const std::string command = std::string("sh ") + ROBOT_EDGE_TEST_PKI + " " + path;
      EXPECT_EQ(std::system(command.c_str()), 0) << command;
      std::ofstream(path + "/observer.token") << kToken << "\n";
      ::chmod((path + "/observer.token").c_str(), 0600);
    }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}

config::Config TlsConfig() {
  config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  config::ClientAccess observer;
  observer.name = config::kObserver;
  observer.token_file = observer.token_path = Pki() + "/observer.token";
  c.api.access.push_back(observer);
  c.api.tls.certificate_path = Pki() + "/server.pem";
  c.api.tls.private_key_path = Pki() + "/server.key";
  return c;
}

// The daemon's API thread: a hub and two listeners on 127.0.0.1, one with TLS, one without.
class ApiTlsTest : public testing::Test {
 protected:
  explicit ApiTlsTest(std::string client_ca = "")
      : config_(TlsConfig()),
        channels_(config_, 8, 4096),
        wake_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
        access_(AccessPolicy::Load(config_, ::getuid())),
        hub_(io_, config_, &channels_, nullptr, ::dup(wake_), "test", &access_),
        tls_listener_(io_, ToHub()),
        plain_listener_(io_, ToHub()) {
    hub_.Start();
    access::TlsFiles files = access::TlsFilesOf(config_.api.tls);
    files.client_ca_path = client_ca;
    tls_listener_.ListenTcp("127.0.0.1", 0, access::MakeServerTlsContext(files, "api.tls"));
    plain_listener_.ListenTcp("127.0.0.1", 0);
    thread_ = std::thread([this] { io_.run(); });
  }
  Listener::AcceptConnection ToHub() {
    return [this](Stream s, Peer p) { hub_.Accept(std::move(s), std::move(p)); };
  }
  ~ApiTlsTest() override {
    asio::post(io_, [this] {
      tls_listener_.Close();
      plain_listener_.Close();
      hub_.Stop("test over");
    });
    work_.reset();
    std::this_thread::sleep_for(100ms);
    io_.stop();
    thread_.join();
    ::close(wake_);
  }

  TlsOptions Trusting(const std::string& ca = "ca") const {
    TlsOptions o;
    o.ca_file = Pki() + "/" + ca + ".pem";
    return o;
  }
  std::uint16_t tls_port() const { return tls_listener_.tcp_port(); }
  std::uint16_t plain_port() const { return plain_listener_.tcp_port(); }

  static edge::Hello ObserverHello() {
    edge::Hello hello;
    hello.set_token(kToken);
    hello.set_no_telemetry(true);
    return hello;
  }
  // A client that gets in and has the robot's clock answered: the API serves over TLS.
  void ExpectServed(std::uint16_t port, const TlsOptions& tls) {
    Client c = Client::ConnectTcp("127.0.0.1", port, 2s, tls);
    c.Hello(ObserverHello(), 2s);
    EXPECT_NO_THROW(c.SyncClock(3, 2s));
  }
  static std::string ConnectError(std::uint16_t port, const TlsOptions& tls) {
    try {
      Client c = Client::ConnectTcp("127.0.0.1", port, 2s, tls);
      c.Hello(ObserverHello(), 2s);
    } catch (const ClientError& e) {
      return e.what();
    }
    return "connected";
  }

  config::Config config_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      io_.get_executor()};
  ControlChannels channels_;
  int wake_;
  AccessPolicy access_;
  Hub hub_;
  Listener tls_listener_, plain_listener_;
  std::thread thread_;
};

TEST_F(ApiTlsTest, AClientTrustingTheCaIsWelcomedAndServed) {
  ExpectServed(tls_port(), Trusting());
  TlsOptions by_name = Trusting();
  by_name.server_name = "localhost";  // the certificate names both
  ExpectServed(tls_port(), by_name);
}

TEST_F(ApiTlsTest, AnotherCaIsNotTrustedAndOthersAreStillServed) {
  const std::string error = ConnectError(tls_port(), Trusting("other"));
  EXPECT_NE(error.find("certificate not trusted"), std::string::npos) << error;
  ExpectServed(tls_port(), Trusting());
}

TEST_F(ApiTlsTest, ACertificateForAnotherNameIsAMismatch) {
  TlsOptions o = Trusting();
  o.server_name = "robot.example";
  const std::string error = ConnectError(tls_port(), o);
  EXPECT_NE(error.find("name mismatch"), std::string::npos) << error;
  EXPECT_NE(error.find("robot.example"), std::string::npos) << error;
  ExpectServed(tls_port(), Trusting());
}

TEST_F(ApiTlsTest, APlaintextClientIsToldThePortSpeaksTls) {
  try {
    Client c = Client::ConnectTcp("127.0.0.1", tls_port(), 2s);
    c.Hello(ObserverHello(), 2s);
    FAIL() << "a plaintext Hello on the TLS port was welcomed";
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), client::ErrorKind::kRefused) << e.what();
    EXPECT_NE(std::string(e.what()).find("speaks TLS"), std::string::npos) << e.what();
  }
  ExpectServed(tls_port(), Trusting());
}

TEST_F(ApiTlsTest, ATlsClientIsToldAPlaintextPortDoesNotSpeakTls) {
  const std::string error = ConnectError(plain_port(), Trusting());
  EXPECT_NE(error.find("does not speak TLS"), std::string::npos) << error;
  ExpectServed(tls_port(), Trusting());
}

TEST_F(ApiTlsTest, AStalledHandshakeNeitherBlocksOthersNorLastsPastItsTimeout) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(tls_port());
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  ExpectServed(tls_port(), Trusting());  // while that one sends nothing
  pollfd p{fd, POLLIN, 0};
  const auto start = std::chrono::steady_clock::now();
  const int timeout_ms =
      static_cast<int>(std::chrono::milliseconds(Listener::kTlsHandshakeTimeout + 3s).count());
  ASSERT_EQ(::poll(&p, 1, timeout_ms), 1) << "the stalled handshake was never cut";
  char byte;
  EXPECT_LE(::recv(fd, &byte, 1, 0), 0);  // closed
  EXPECT_GE(std::chrono::steady_clock::now() - start, Listener::kTlsHandshakeTimeout - 1s);
  ::close(fd);
}

// Relays one connection to `port`, keeping what the client sent.
class Tap {
 public:
  explicit Tap(std::uint16_t port) : target_(port) {
    listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = Loopback(0);
    EXPECT_EQ(::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    EXPECT_EQ(::listen(listen_, 1), 0);
    socklen_t size = sizeof(a);
    ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &size);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Relay(); });
  }
  ~Tap() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(listen_);
  }
  std::uint16_t port() const { return port_; }
  std::string sent() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return sent_;
  }

 private:
  static sockaddr_in Loopback(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
  }
  void Relay() {
    pollfd accept_poll{listen_, POLLIN, 0};
    if (::poll(&accept_poll, 1, 3000) != 1) return;
    const int client = ::accept(listen_, nullptr, nullptr);
    const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = Loopback(target_);
    ::connect(server, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    char buffer[16384];
    while (!stop_) {
      pollfd p[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
      if (::poll(p, 2, 50) <= 0) continue;
      if (p[0].revents != 0) {
        const ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
        if (n <= 0) break;
        sent_.append(buffer, static_cast<std::size_t>(n));
        ::send(server, buffer, static_cast<std::size_t>(n), MSG_NOSIGNAL);
      }
      if (p[1].revents != 0) {
        const ssize_t n = ::recv(server, buffer, sizeof(buffer), 0);
        if (n <= 0) break;
        ::send(client, buffer, static_cast<std::size_t>(n), MSG_NOSIGNAL);
      }
    }
    ::close(client);
    ::close(server);
  }

  std::uint16_t target_, port_ = 0;
  int listen_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::string sent_;
};

// Red team of issue 38: robot-edgectl died silently (status 141, SIGPIPE) when the API's door
// closed its TLS connection: OpenSSL writes into the socket without MSG_NOSIGNAL. Writing into a
// TLS connection the daemon closed is an error code; this test program, with SIGPIPE's default
// action (death), lives to check it.
TEST_F(ApiTlsTest, WritingIntoATlsConnectionTheDaemonClosedIsAnErrorNotADeath) {
  const auto previous = std::signal(SIGPIPE, SIG_DFL);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(tls_port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  auto channel = client::TlsChannel::Handshake(fd, Trusting(), "127.0.0.1", "test",
                                               std::chrono::steady_clock::now() + 3s);
  ASSERT_TRUE(channel);
  asio::post(io_, [this] { hub_.Stop("closing every connection on purpose"); });
  std::this_thread::sleep_for(300ms);
  const std::string bytes(4096, 'x');
  bool refused = false;
  for (int i = 0; i < 50 && !refused; ++i) {  // the first write draws a reset, the next EPIPE
    std::size_t n = 0;
    const auto io = channel->Write(bytes.data(), bytes.size(), &n);
    refused = io == client::TlsChannel::Io::kError || io == client::TlsChannel::Io::kClosed;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(refused) << "the writes into a closed connection kept succeeding";
  channel.reset();
  ::close(fd);
  std::signal(SIGPIPE, previous);
}

TEST_F(ApiTlsTest, TheTokenIsNotInClearOnTheWire) {
  {  // precondition: the tap sees a plaintext Hello's token
    Tap tap(plain_port());
    Client c = Client::ConnectTcp("127.0.0.1", tap.port(), 2s);
    c.Hello(ObserverHello(), 2s);
    ASSERT_NE(tap.sent().find(kToken), std::string::npos);
  }
  Tap tap(tls_port());
  TlsOptions o = Trusting();
  o.server_name = "127.0.0.1";  // the tap's address is the daemon's
  Client c = Client::ConnectTcp("127.0.0.1", tap.port(), 2s, o);
  c.Hello(ObserverHello(), 2s);
  c.SyncClock(1, 2s);
  const std::string sent = tap.sent();
  ASSERT_GT(sent.size(), 5u);
  EXPECT_EQ(sent[0], '\x16') << "the first record is not a TLS handshake";
  EXPECT_EQ(sent.find(kToken), std::string::npos) << "the token went in clear";
}

// api.tls.client_ca: a client must show a certificate the CA signed.
class ApiMutualTlsTest : public ApiTlsTest {
 protected:
  ApiMutualTlsTest() : ApiTlsTest(Pki() + "/ca.pem") {}
};

TEST_F(ApiMutualTlsTest, AClientWithoutACertificateIsRefusedOneWithItIsServed) {
  const std::string error = ConnectError(tls_port(), Trusting());
  EXPECT_NE(error, "connected");
  TlsOptions rogue = Trusting();
  rogue.certificate = Pki() + "/rogue.pem";
  rogue.private_key = Pki() + "/rogue.key";
  EXPECT_NE(ConnectError(tls_port(), rogue), "connected");
  TlsOptions robot = Trusting();
  robot.certificate = Pki() + "/robot.pem";
  robot.private_key = Pki() + "/robot.key";
  ExpectServed(tls_port(), robot);
}

TEST(ApiTlsContext, AKeyThatDoesNotMatchTheCertificateIsRefusedByName) {
  access::TlsFiles files{Pki() + "/server.pem", Pki() + "/robot.key", ""};
  try {
    access::MakeServerTlsContext(files, "api.tls");
    FAIL() << "a mismatched key was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("api.tls.private_key"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not match"), std::string::npos) << e.what();
  }
  files = {Pki() + "/missing.pem", Pki() + "/server.key", ""};
  EXPECT_THROW(access::MakeServerTlsContext(files, "api.tls"), std::runtime_error);
}

}  // namespace
}  // namespace robot_edge::daemon
