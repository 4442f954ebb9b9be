// The live view's attacks (issue 32, item 3), aimed at robot-edge-live, and what they cost
// robot-edged: the daemon's own wiring (live_daemon_on_sim: RunDaemon on the simulated robot, this
// machine's kernel, with robot-edge-live as a child process) started with RLIMIT_NOFILE 256, and
// from outside:
//   - viewers that subscribe, send and never read: robot-edged's RSS does not move (the live
//     view's backlogs are robot-edge-live's);
//   - 300 TCP connections: robot-edged's descriptors do not move, the live thread (in
//     robot-edge-live) does not spin, and robot-edgectl still gets its Welcome, a black box is
//     still written, and DAMP is accepted;
//   - 32 viewers, then the operator: its DAMP (an observer's DAMP over the API) reaches the motors;
//   - a page on another site: 403;
//   - robot-edge-live killed (SIGKILL): robot-edged runs on, the motors hold.
// The control loop's tick period (the state stream's consecutive ticks) is measured before and
// during each attack and printed; asserted only loosely (the machine is shared and slow).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client/client.hpp"
#include "ws_client.hpp"

namespace robot_edge::live {
namespace {

using namespace std::chrono_literals;
using test::WsClient;
namespace fs = std::filesystem;

constexpr rlim_t kFdLimit = 256;  // the probe's
constexpr char kOperatorToken[] = "operator-secret";
// What robot-edged's RSS may move by during an attack on the live view: its own allocations
// (the meter's state stream, the recorder's black box filling) with no viewer at all. The live
// view's backlogs, when it ran inside robot-edged, grew it by up to 32 MiB.
// Measured: 20 KiB with robot-edge-live apart; about 1 MiB with the live view in robot-edged.
constexpr long kRssNoiseKib = 512;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The output of `command` (stdout and stderr) and its exit status.
struct Shelled {
  int status = -1;
  std::string output;
};
Shelled Shell(const std::string& command) {
  Shelled run;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    run.output.append(buffer, n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

long ProcStatusKib(pid_t pid, const std::string& key) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

std::size_t OpenFds(pid_t pid) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

// utime + stime of `pid`'s thread named `name`, in clock ticks.
long ThreadTicks(pid_t pid, const std::string& name) {
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::string comm;
    std::getline(std::ifstream(task.path() / "comm"), comm);
    if (comm != name) continue;
    const std::string stat = ReadFile(task.path() / "stat");
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    long ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i == 14 || i == 15) ticks += std::stol(field);
    }
    return ticks;
  }
  return -1;
}

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

// The control loop's tick periods as a state-stream client sees them (JointState.robot_time_us
// of consecutive ticks), in µs.
struct Periods {
  double p50 = 0, p99 = 0, max = 0;
  std::size_t count = 0;
};
Periods MeasureLoop(const std::string& api_socket, std::chrono::milliseconds window) {
  Periods out;
  try {
    auto c = client::Client::ConnectUnix(api_socket, 5s);
    edge::Hello hello;
    c.Hello(hello, 5s);
    if (!c.StreamState(500, 2s)) return out;
    std::vector<double> periods;
    std::uint64_t last_tick = 0, last_us = 0;
    const auto end = std::chrono::steady_clock::now() + window;
    while (std::chrono::steady_clock::now() < end) {
      const auto m = c.Read(200ms);
      if (!m || !m->has_joint_state()) continue;
      const auto& s = m->joint_state();
      if (last_tick != 0 && s.tick() == last_tick + 1) {
        periods.push_back(static_cast<double>(s.robot_time_us() - last_us));
      }
      last_tick = s.tick();
      last_us = s.robot_time_us();
    }
    if (periods.empty()) return out;
    std::sort(periods.begin(), periods.end());
    out.count = periods.size();
    out.p50 = periods[periods.size() / 2];
    out.p99 = periods[std::min(periods.size() - 1, periods.size() * 99 / 100)];
    out.max = periods.back();
  } catch (const std::exception& e) {
    std::printf("loop measurement failed: %s\n", e.what());
  }
  return out;
}

// robot-edged's loop p99 during an attack on the live view stays what it was before: within four
// times (at least 2.5 ms) and 2 ms. Measured on 2 shared cores: 2042 -> 2079 µs with
// robot-edge-live apart; 2044 -> 3676 µs with the live view in robot-edged; and, with the unit
// tests beside it, "before" windows from 2140 to 3490 µs, and on a host loaded by a build, a p99
// over the older bound of twice and 1 ms once. So this bound catches only a loop the attack stalls:
// the thread and descriptor checks are the ones that tell the live view is out of robot-edged.
void ExpectLoopUnchanged(const Periods& before, const Periods& during) {
  ASSERT_GT(before.count, 100u);
  ASSERT_GT(during.count, 100u);
  EXPECT_LT(during.p99, 4 * std::max(before.p99, 2500.0) + 2000) << "µs: robot-edged's loop p99";
}

void Print(const char* when, const Periods& p) {
  std::printf("control loop %-34s p50 %6.0f µs  p99 %6.0f µs  max %6.0f µs  (%zu periods)\n", when,
              p.p50, p.p99, p.max, p.count);
}

// live_daemon_on_sim under RLIMIT_NOFILE kFdLimit, with an operator token; stopped (its stdin
// closed: a clean shutdown) when the test ends.
class DaemonUnderAttack : public testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/live_attack_XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    std::ofstream(dir_ + "/operator.token") << kOperatorToken << "\n";
    fs::permissions(dir_ + "/operator.token", fs::perms::owner_read | fs::perms::owner_write);
    int in[2];
    ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      const rlimit limit{kFdLimit, kFdLimit};
      ::setrlimit(RLIMIT_NOFILE, &limit);
      ::dup2(in[0], 0);
      const int out = ::open((dir_ + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = ::open((dir_ + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::execl(LIVE_DAEMON_ON_SIM, LIVE_DAEMON_ON_SIM, "--config", ROBOT_EDGE_CONFIG, "--dir",
              dir_.c_str(), "--web-root", ROBOT_EDGE_WEB_ROOT, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    stdin_ = in[1];
    api_ = dir_ + "/api.sock";
    // Its Welcome names the live view: http://127.0.0.1:PORT/
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && port_ == 0) {
      std::this_thread::sleep_for(200ms);
      try {
        auto c = client::Client::ConnectUnix(api_, 1s);
        const edge::Welcome w = c.Hello(edge::Hello{}, 2s);
        port_ =
            static_cast<std::uint16_t>(std::stoi(w.live_url().substr(w.live_url().rfind(':') + 1)));
      } catch (const std::exception&) {
      }
    }
    ASSERT_NE(port_, 0) << "the daemon did not answer:\n" << ReadFile(dir_ + "/stderr");
    live_pid_ = std::stoi(ReadFile(dir_ + "/live.pid"));
    // robot-edge-live started before robot-edged's socket existed: it retried, then connected.
    while (std::chrono::steady_clock::now() < deadline &&
           ReadFile(dir_ + "/stderr").find("connected to robot-edged") == std::string::npos) {
      std::this_thread::sleep_for(100ms);
    }
    ASSERT_NE(ReadFile(dir_ + "/stderr").find("connected to robot-edged"), std::string::npos)
        << ReadFile(dir_ + "/stderr");
    std::this_thread::sleep_for(1s);  // settled
  }

  void TearDown() override {
    if (pid_ > 0) {
      ::close(stdin_);  // the daemon's clean shutdown
      int status = 0;
      for (int i = 0; i < 100 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(100ms);
      }
      if (::waitpid(pid_, &status, WNOHANG) == 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
      }
    }
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }

  Shelled Edgectl(const std::string& args) const {
    return Shell(std::string(ROBOT_EDGECTL) + " --socket " + api_ + " " + args);
  }
  long RssKib() const { return ProcStatusKib(pid_, "VmRSS"); }  // robot-edged's
  std::string Motors() const {  // the last "motors: ..." line of its stdout
    const std::string out = ReadFile(dir_ + "/stdout");
    const std::size_t at = out.rfind("motors: ");
    return at == std::string::npos ? "" : out.substr(at + 8, out.find('\n', at) - at - 8);
  }
  bool WaitMotors(const std::string& prefix, std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (Motors().rfind(prefix, 0) != 0) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
    return true;
  }

  // A DAMP through the live view's service with the operator's token; true when accepted.
  bool OperatorDamp() const {
    WsClient op(port_, std::string("/?operator_token=") + kOperatorToken);
    if (op.status() != 101) {
      std::printf("operator's upgrade: %d %s\n", op.status(), op.handshake().body.c_str());
      return false;
    }
    const auto services = op.NextOp("advertiseServices");
    if (!services) return false;
    const std::size_t at = services->find("\"id\":");
    const auto id = static_cast<std::uint32_t>(std::stoul(services->substr(at + 5)));
    std::string call(1, '\x02');
    for (const std::uint32_t v : {id, 1u, 4u}) {
      for (int b = 0; b < 4; ++b) call.push_back(static_cast<char>(v >> (8 * b) & 0xff));
    }
    op.SendBinary(call + "json{}");
    for (int i = 0; i < 20; ++i) {
      const auto m = op.Next(1000ms);
      if (!m) return false;
      if (m->binary && !m->data.empty() && m->data[0] == 3) {
        return m->data.find("accepted") != std::string::npos;
      }
    }
    return false;
  }

  std::string dir_, api_;
  pid_t pid_ = -1;       // robot-edged (live_daemon_on_sim)
  pid_t live_pid_ = -1;  // robot-edge-live, its child
  int stdin_ = -1;
  std::uint16_t port_ = 0;
};

TEST_F(DaemonUnderAttack, ViewersThatSubscribeSendAndNeverReadCostBoundedMemory) {
  const Periods before = MeasureLoop(api_, 3s);
  const long rss_before = RssKib();
  long rss_peak = rss_before;
  const long live_rss_before = ProcStatusKib(live_pid_, "VmRSS");
  long live_rss_peak = live_rss_before;
  Periods during;
  std::thread meter([&] { during = MeasureLoop(api_, 8s); });

  // Four viewers at a time, each with a 4 KiB receive buffer: two subscribe to every channel, all
  // send unknown ops (each answered with a status) as fast as it can, never reading; replaced
  // by a new one every 2 s (a dropped viewer cannot tell without reading). For 10 s.
  const std::string subscribe = R"({"op":"subscribe","subscriptions":[)" + [] {
    std::string list;
    for (int i = 1; i <= 8; ++i) {
      list += (i > 1 ? "," : "") + std::string(R"({"id":)") + std::to_string(i) +
              R"(,"channelId":)" + std::to_string(i) + "}";
    }
    return list;
  }() + "]}";
  const std::string echo = R"({"op":")" + std::string(4000, 'e') + R"("})";
  int viewers_opened = 0;
  const long ticks_before = ThreadTicks(live_pid_, "re-live");
  std::vector<std::unique_ptr<WsClient>> viewers(4);
  const auto end = std::chrono::steady_clock::now() + 10s;
  auto renew = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < end) {
    const bool all = std::chrono::steady_clock::now() >= renew;
    if (all) renew += 2s;
    for (auto& v : viewers) {
      if (all || !v || v->status() != 101) {
        v = std::make_unique<WsClient>(port_, "/", 4096);
        ++viewers_opened;
        // Half subscribe (the fan-out's backlog), half only ask (the replies' backlog).
        if (v->status() == 101 && &v - viewers.data() < 2) v->SendText(subscribe);
      }
      for (int i = 0; i < 50 && v->status() == 101; ++i) v->SendText(echo);
    }
    rss_peak = std::max(rss_peak, RssKib());
    live_rss_peak = std::max(live_rss_peak, ProcStatusKib(live_pid_, "VmRSS"));
  }
  const long live_ticks = ThreadTicks(live_pid_, "re-live") - ticks_before;
  viewers.clear();
  meter.join();
  std::this_thread::sleep_for(1s);
  const long rss_after = RssKib();
  const std::string log = ReadFile(dir_ + "/stderr");
  std::size_t drops = 0;
  for (std::size_t at = log.find(": disconnected"); at != std::string::npos;
       at = log.find(": disconnected", at + 1)) {
    ++drops;
  }
  std::printf(
      "never-reading viewers: %d opened, %zu dropped (backlog or flood); robot-edged RSS %ld KiB "
      "before, %ld KiB peak, %ld KiB after; robot-edge-live RSS %ld KiB before, %ld KiB peak; "
      "live thread %ld ticks in 10 s (%ld per s = 100 %%)\n",
      viewers_opened, drops, rss_before, rss_peak, rss_after, live_rss_before, live_rss_peak,
      live_ticks, ::sysconf(_SC_CLK_TCK));
  Print("before:", before);
  Print("during never-reading viewers:", during);

  EXPECT_GT(drops, 0u) << "no viewer was dropped: the attack did not fill a backlog";
  // robot-edged hosts nothing of the live view: no thread, and its RSS moves only as it would
  // without any viewer (its own allocator's noise, the meter's client: kRssNoiseKib).
  EXPECT_EQ(ThreadTicks(pid_, "re-live"), -1) << "robot-edged runs a live view thread";
  EXPECT_LT(rss_peak - rss_before, kRssNoiseKib) << "KiB of robot-edged's RSS";
  EXPECT_GT(live_rss_peak, 0) << "robot-edge-live was not running";
  ExpectLoopUnchanged(before, during);
  EXPECT_EQ(Edgectl("damp").status, 0);
}

TEST_F(DaemonUnderAttack, ThreeHundredConnectionsUnderA256DescriptorLimit) {
  const Periods before = MeasureLoop(api_, 3s);
  const std::size_t fds_before = OpenFds(pid_);
  const std::size_t live_fds_before = OpenFds(live_pid_);
  Periods during;
  std::thread meter([&] { during = MeasureLoop(api_, 6s); });

  // 150 sockets that never say a word, 150 that ask to upgrade and never read.
  std::vector<int> attack;
  const std::string upgrade =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
      "Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n";
  for (int i = 0; i < 300; ++i) {
    const int fd = RawConnect(port_);
    if (fd >= 0 && i % 2 == 1) (void)::send(fd, upgrade.data(), upgrade.size(), MSG_NOSIGNAL);
    attack.push_back(fd);
  }
  std::size_t fds_peak = 0, live_fds_peak = 0;
  const long ticks_before = ThreadTicks(live_pid_, "re-live");
  for (int i = 0; i < 40; ++i) {  // 4 s
    fds_peak = std::max(fds_peak, OpenFds(pid_));
    live_fds_peak = std::max(live_fds_peak, OpenFds(live_pid_));
    std::this_thread::sleep_for(100ms);
  }
  const long live_ticks = ThreadTicks(live_pid_, "re-live") - ticks_before;

  // Meanwhile the daemon's own doors work: the API's Welcome, a black box, DAMP.
  const Shelled status = Edgectl("status");
  const Shelled blackbox = Edgectl("blackbox save --reason attack");
  const Shelled damp = Edgectl("damp");
  meter.join();
  for (const int fd : attack) ::close(fd);
  std::this_thread::sleep_for(1s);
  const std::size_t fds_after = OpenFds(pid_);
  const std::string log = ReadFile(dir_ + "/stderr");

  std::printf(
      "300 connections, RLIMIT_NOFILE %lu: robot-edged fds %zu before, %zu peak, %zu after; "
      "robot-edge-live fds %zu before, %zu peak; live thread %ld ticks in 4 s (%ld per s = "
      "100 %%)\n",
      static_cast<unsigned long>(kFdLimit), fds_before, fds_peak, fds_after, live_fds_before,
      live_fds_peak, live_ticks, ::sysconf(_SC_CLK_TCK));
  Print("before:", before);
  Print("during 300 connections:", during);

  EXPECT_EQ(status.status, 0) << status.output;
  EXPECT_EQ(blackbox.status, 0) << blackbox.output;
  EXPECT_EQ(damp.status, 0) << damp.output;
  EXPECT_EQ(log.find("Too many open files"), std::string::npos) << log;
  // robot-edged: the meter's API connection only (and edgectl's, while it runs). The live view's
  // sockets (live.max_connections, and those accepted to be refused) are robot-edge-live's.
  EXPECT_LE(fds_peak, fds_before + 2) << "robot-edged's descriptors moved with the attack";
  EXPECT_LE(live_fds_peak, live_fds_before + 16 + 8) << "more than live.max_connections (16)";
  EXPECT_LT(live_ticks, 4 * ::sysconf(_SC_CLK_TCK) / 4) << "the live thread spun (> 25 % CPU)";
  ExpectLoopUnchanged(before, during);
}

TEST_F(DaemonUnderAttack, ThirtyTwoViewersThenTheOperatorsDampStopsTheRobot) {
  ASSERT_EQ(Edgectl("--controller cloud stand").status, 0);
  ASSERT_TRUE(WaitMotors("25 holding", 15s)) << Motors();
  const Periods before = MeasureLoop(api_, 3s);

  std::vector<std::unique_ptr<WsClient>> viewers;
  int open = 0, refused = 0;
  for (int i = 0; i < 32; ++i) {
    viewers.push_back(std::make_unique<WsClient>(port_, "/"));
    if (viewers.back()->status() == 101) ++open;
    if (viewers.back()->status() == 503) ++refused;
  }
  Periods during;
  std::thread meter([&] { during = MeasureLoop(api_, 3s); });
  const auto pressed = std::chrono::steady_clock::now();
  const bool accepted = OperatorDamp();
  const bool damped = WaitMotors("0 holding, 25 damped", 2s);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - pressed).count();
  meter.join();
  std::printf(
      "32 viewers: %d open, %d refused (503); the operator's DAMP %s, motors damped in "
      "%.0f ms (%s)\n",
      open, refused, accepted ? "accepted" : "REFUSED", ms, Motors().c_str());
  Print("before:", before);
  Print("with 32 viewers:", during);

  EXPECT_EQ(open, 12) << "viewers hold max_connections - 4 slots";
  EXPECT_TRUE(accepted);
  EXPECT_TRUE(damped) << Motors();
  ExpectLoopUnchanged(before, during);
}

TEST_F(DaemonUnderAttack, KillingTheLiveViewLeavesRobotEdgedAndTheMotorsAlone) {
  ASSERT_EQ(Edgectl("--controller cloud stand").status, 0);
  ASSERT_TRUE(WaitMotors("25 holding", 15s)) << Motors();
  const std::size_t fds_before = OpenFds(pid_);
  ASSERT_EQ(::kill(live_pid_, SIGKILL), 0);
  std::this_thread::sleep_for(2s);
  const Periods after = MeasureLoop(api_, 2s);
  Print("after robot-edge-live's SIGKILL:", after);
  EXPECT_EQ(::waitpid(pid_, nullptr, WNOHANG), 0) << "robot-edged exited";
  EXPECT_EQ(Motors().rfind("25 holding", 0), 0u) << Motors();
  const Shelled status = Edgectl("status");
  EXPECT_EQ(status.status, 0) << status.output;
  EXPECT_NE(status.output.find("STAND"), std::string::npos) << status.output;
  EXPECT_GT(after.count, 100u) << "no state stream after the kill";
  EXPECT_LE(OpenFds(pid_), fds_before) << "robot-edged kept the dead viewer's connections";
}

TEST_F(DaemonUnderAttack, APageOnAnotherSiteIsRefused403) {
  WsClient cross(port_, "/", 0, "foxglove.websocket.v1", "Origin: http://evil.example\r\n");
  EXPECT_EQ(cross.status(), 403);
  const std::string own = "127.0.0.1:" + std::to_string(port_);
  WsClient same(port_, "/", 0, "foxglove.websocket.v1",
                "Host: " + own + "\r\nOrigin: http://" + own + "\r\n");
  EXPECT_EQ(same.status(), 101);
  EXPECT_EQ(test::HttpGet(port_, "/", "Host: attacker.example:8765\r\n").status, 403);
}

}  // namespace
}  // namespace robot_edge::live
