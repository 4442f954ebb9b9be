// The live view's door, from outside (live/server_door.cpp): nothing a peer does may cost the
// process memory, descriptors or loop time. Each test is an attack: a page on another site, a
// flood of sockets that never finish their handshake, an accept that fails with EMFILE, viewers
// that fill the slots before the operator comes, a viewer that sends and never reads.
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "access/tls.hpp"
#include "live/live_server.hpp"
#include "ws_client.hpp"

namespace robot_edge::live {
namespace {

using namespace std::chrono_literals;
using test::HttpGet;
using test::WsClient;

LiveOptions Loopback() {
  LiveOptions options;
  options.port = 0;
  return options;
}

// /proc/self/status's VmRSS, in KiB.
long RssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// CPU time of the thread named `name` (utime + stime), in clock ticks.
long ThreadTicks(const std::string& name) {
  DIR* dir = ::opendir("/proc/self/task");
  long ticks = -1;
  while (const dirent* entry = dir ? ::readdir(dir) : nullptr) {
    if (entry->d_name[0] == '.') continue;
    const std::string task = std::string("/proc/self/task/") + entry->d_name;
    std::string comm;
    std::getline(std::ifstream(task + "/comm") >> std::ws, comm);
    if (comm != name) continue;
    std::string stat;
    std::getline(std::ifstream(task + "/stat"), stat);
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i == 14) utime = std::stol(field);
      if (i == 15) stime = std::stol(field);
    }
    ticks = utime + stime;
  }
  if (dir) ::closedir(dir);
  return ticks;
}

// A TCP socket connected to the server that sends nothing: an unfinished handshake.
int RawConnect(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

template <typename F>
bool Within(std::chrono::milliseconds timeout, F done) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

TEST(LiveDoor, CrossOriginUpgradeAndForeignHostAreRefusedWith403) {
  LiveOptions options = Loopback();
  options.allowed_origins = {"https://app.foxglove.dev"};
  LiveServer server(options);
  server.Start();
  const std::string own = "127.0.0.1:" + std::to_string(server.port());
  const auto upgrade = [&](const std::string& headers) {
    return WsClient(server.port(), "/", 0, "foxglove.websocket.v1", headers).status();
  };
  EXPECT_EQ(upgrade("Origin: http://evil.example\r\n"), 403);
  EXPECT_EQ(upgrade("Origin: null\r\n"), 403);
  EXPECT_EQ(upgrade("Host: " + own + "\r\nOrigin: http://127.0.0.1:1\r\n"), 403);  // other port
  EXPECT_EQ(upgrade("Host: rebound.evil.example:8765\r\n"), 403);                  // DNS rebinding
  EXPECT_EQ(upgrade("Host: " + own + "\r\nOrigin: http://" + own + "\r\n"), 101);  // its own page
  EXPECT_EQ(upgrade("Origin: https://app.foxglove.dev\r\n"), 101);                 // listed
  EXPECT_EQ(upgrade(""), 101);  // no Origin: not a browser (Foxglove desktop, tools)
  EXPECT_EQ(HttpGet(server.port(), "/", "Host: rebound.evil.example\r\n").status, 403);
  EXPECT_EQ(HttpGet(server.port(), "/", "Host: localhost:9000\r\n").status, 404);  // a tunnel
  EXPECT_EQ(server.stats().forbidden, 5u);
}

TEST(LiveDoor, SocketsAreCappedBeforeTheHandshakeAndUnfinishedOnesTimeOut) {
  LiveOptions options = Loopback();
  options.max_connections = 8;
  options.handshake_timeout_ms = 500;
  options.operator_token = "op";
  LiveServer server(options);
  server.AddService({"/robot_edge/damp", "robot_edge/Damp", "", "", true}, [](std::string_view) {
    return ServiceReply{true, R"({"accepted":true})"};
  });
  server.Start();
  ASSERT_EQ(server.stats().connection_cap, 8u);

  std::vector<int> flood;  // 300 sockets that never say a word
  for (int i = 0; i < 300; ++i) flood.push_back(RawConnect(server.port()));
  ASSERT_TRUE(Within(2s, [&] {
    return server.stats().connections_refused + server.stats().connections_timed_out >= 290;
  }));
  EXPECT_LE(server.stats().connections, 8u);

  // The operator gets in through the flood: its socket takes an unfinished one's place.
  WsClient op(server.port(), "/?operator_token=op");
  EXPECT_EQ(op.status(), 101);
  EXPECT_LE(server.stats().connections, 8u);
  // The flood's sockets are closed after handshake_timeout_ms.
  EXPECT_TRUE(Within(3s, [&] { return server.stats().connections == 1; }))
      << server.stats().connections << " sockets open";
  for (const int fd : flood) ::close(fd);
  std::printf("300 silent sockets: %llu refused at accept, %llu closed unfinished\n",
              static_cast<unsigned long long>(server.stats().connections_refused),
              static_cast<unsigned long long>(server.stats().connections_timed_out));
}

// The throwaway PKI of tests/uplink/make_test_pki.sh, made once per test program; removed at exit.
std::string Pki() {
  struct Dir {
    std::string path = testing::TempDir() + "live_door_pki_" + std::to_string(::getpid());
    Dir() {
      const std::string command = "sh " ROBOT_EDGE_TEST_PKI " " + path + " >/dev/null";
      EXPECT_EQ(std::system(command.c_str()), 0) << command;
    }
    ~Dir() { std::system(("rm -rf " + path).c_str()); }
  };
  static const Dir dir;
  return dir.path;
}

// With live.tls the same door: sockets are counted at accept, before the TLS handshake; a peer
// that never starts it is closed after handshake_timeout_ms (a timeout, not a TLS failure);
// plain HTTP to the TLS port is a failed handshake, counted, and the server goes on.
TEST(LiveDoor, WithTlsSocketsAreCappedBeforeTheTlsHandshakeAndStalledOnesClosed) {
  LiveOptions options = Loopback();
  options.max_connections = 8;
  options.handshake_timeout_ms = 500;
  options.tls =
      access::MakeServerTlsContext({Pki() + "/server.pem", Pki() + "/server.key", ""}, "live.tls");
  LiveServer server(options);
  server.Start();
  std::vector<int> flood;  // 300 sockets that never send a ClientHello
  for (int i = 0; i < 300; ++i) flood.push_back(RawConnect(server.port()));
  ASSERT_TRUE(Within(2s, [&] {
    return server.stats().connections_refused + server.stats().connections_timed_out >= 290;
  }));
  EXPECT_LE(server.stats().connections, 8u);
  EXPECT_TRUE(Within(3s, [&] { return server.stats().connections == 0; }))
      << server.stats().connections << " sockets open";
  for (const int fd : flood) ::close(fd);
  EXPECT_EQ(server.stats().tls_handshakes_failed, 0u) << "a stalled handshake is a timeout";

  EXPECT_NE(HttpGet(server.port(), "/").status, 200);  // plain HTTP: no page
  EXPECT_TRUE(Within(2s, [&] { return server.stats().tls_handshakes_failed == 1; }));
  EXPECT_TRUE(Within(2s, [&] { return server.stats().connections == 0; }));
  std::printf("TLS: 300 silent sockets: %llu refused at accept, %llu closed unfinished\n",
              static_cast<unsigned long long>(server.stats().connections_refused),
              static_cast<unsigned long long>(server.stats().connections_timed_out));
}

TEST(LiveDoor, ViewersLeaveTheOperatorItsSlots) {
  LiveOptions options = Loopback();
  options.max_connections = 8;  // 4 viewers, 4 kept for operators
  options.operator_token = "op";
  LiveServer server(options);
  server.AddService({"/robot_edge/damp", "robot_edge/Damp", "", "", true}, [](std::string_view) {
    return ServiceReply{true, R"({"accepted":true})"};
  });
  server.Start();
  std::vector<std::unique_ptr<WsClient>> viewers;
  for (int i = 0; i < 4; ++i) {
    viewers.push_back(std::make_unique<WsClient>(server.port(), "/"));
    ASSERT_EQ(viewers.back()->status(), 101) << "viewer " << i;
  }
  EXPECT_EQ(WsClient(server.port(), "/").status(), 503);
  EXPECT_EQ(WsClient(server.port(), "/?operator_token=wrong").status(), 503);

  WsClient op(server.port(), "/?operator_token=op");
  ASSERT_EQ(op.status(), 101);
  ASSERT_TRUE(op.NextOp("advertiseServices"));
  // serviceCallRequest: op 2, service 1, call 7, encoding "json", {}.
  std::string call = {2, 1, 0, 0, 0, 7, 0, 0, 0, 4, 0, 0, 0};
  call += "json{}";
  op.SendBinary(call);
  bool answered = false;
  for (int i = 0; i < 10 && !answered; ++i) {
    const auto m = op.Next();
    answered = m && m->binary && !m->data.empty() && m->data[0] == 3;  // serviceCallResponse
  }
  EXPECT_TRUE(answered) << "the operator's DAMP got no response";
}

TEST(LiveDoor, AViewerThatSendsAndNeverReadsIsDroppedWithBoundedMemory) {
  LiveOptions options = Loopback();
  options.max_client_backlog_bytes = 1 << 20;
  LiveServer server(options);
  server.Start();
  const long rss_before = RssKib();
  WsClient spammer(server.port(), "/", 4096);
  ASSERT_EQ(spammer.status(), 101);
  // Every unknown op is answered with a status of its size; the spammer reads none of them. 50
  // requests a second (under the flood limit) of 30 kB: its replies pass the 1 MiB backlog.
  const std::string request = R"({"op":")" + std::string(30000, 'x') + R"("})";
  for (int i = 0; i < 200 && server.stats().slow_clients_dropped == 0; ++i) {
    spammer.SendText(request);
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(Within(2s, [&] { return server.stats().slow_clients_dropped == 1; }));
  EXPECT_EQ(server.stats().flooding_dropped, 0u);
  const long grown_kib = RssKib() - rss_before;
  std::printf("a viewer that sends and never reads: dropped; RSS grew %ld KiB\n", grown_kib);
  EXPECT_LT(grown_kib, 32 * 1024);
  EXPECT_TRUE(Within(2s, [&] { return server.stats().clients == 0; }));
}

TEST(LiveDoor, AClientSendingMoreThanAHundredRequestsASecondIsDropped) {
  LiveServer server(Loopback());
  server.Start();
  WsClient flood(server.port(), "/");
  ASSERT_EQ(flood.status(), 101);
  for (int i = 0; i < 150; ++i) flood.SendText(R"({"op":"unsubscribe","subscriptionIds":[1]})");
  EXPECT_TRUE(Within(2s, [&] { return server.stats().flooding_dropped == 1; }));
  EXPECT_TRUE(flood.WaitClosed(2s));
  WsClient calm(server.port(), "/");  // the others are unaffected
  ASSERT_EQ(calm.status(), 101);
  for (int i = 0; i < 50; ++i) calm.SendText(R"({"op":"unsubscribe","subscriptionIds":[1]})");
  EXPECT_TRUE(calm.NextOp("status"));
  EXPECT_EQ(server.stats().flooding_dropped, 1u);
}

// An accept that fails with EMFILE is retried after a back-off, not in a loop: the live thread
// stays nearly idle while descriptors are short, and accepts again once they are back.
TEST(LiveDoor, AcceptFailingWithEmfileBacksOff) {
  LiveOptions options = Loopback();
  options.max_connections = 64;
  options.reserved_fds = 0;
  LiveServer server(options);
  server.Start();

  std::vector<int> clients;  // created before the limit is lowered: they do not count against it
  for (int i = 0; i < 40; ++i) clients.push_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  rlimit original{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &original), 0);
  long highest = 0;
  for (const int fd : clients) highest = std::max<long>(highest, fd);
  rlimit lowered = original;
  lowered.rlim_cur = static_cast<rlim_t>(highest + 4);  // room for about 3 accepts
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);

  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(server.port());
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (const int fd : clients) ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  std::this_thread::sleep_for(300ms);
  const long ticks_before = ThreadTicks("re-live");
  std::this_thread::sleep_for(2s);
  const long ticks = ThreadTicks("re-live") - ticks_before;
  const auto errors = server.stats().accept_errors;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &original), 0);
  for (const int fd : clients) ::close(fd);

  std::printf("EMFILE for 2 s: live thread used %ld ticks of %ld, %llu failed accepts\n", ticks,
              2 * ::sysconf(_SC_CLK_TCK), static_cast<unsigned long long>(errors));
  EXPECT_GT(errors, 0u) << "the accept never failed: the test did not run out of descriptors";
  EXPECT_LT(errors, 100u) << "accept retried without a back-off";
  EXPECT_LT(ticks, ::sysconf(_SC_CLK_TCK) / 5) << "the live thread spun (more than 10 % CPU)";
  WsClient after(server.port(), "/");
  EXPECT_EQ(after.status(), 101) << "no accept after the descriptors came back";
}

}  // namespace
}  // namespace robot_edge::live
