// The fatal-signal DAMP's handshake with the control thread (daemon/control/fatal_signals.hpp),
// on a real vcan bus (issue 40, item 2): a crash while a tick is under way must put the tick's
// frames on the wire before the DAMP, never after it, and no tick may begin once the handler has
// started; and real faults on the control thread itself (a null write, an integer division by
// zero, a trap, a bus error) send the DAMP. In child processes that die of the signal; this
// process reads vcan0.
#include <linux/can.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "can/emergency.hpp"
#include "daemon/control/fatal_signals.hpp"
#include "vcan_util.hpp"

namespace robot_edge::can::vcan {
namespace {

constexpr canid_t kDampId = 0x0DA, kTickId = 0x071, kLateTickId = 0x072;

RawFrame On(const std::string& interface, const can_frame& frame) {
  RawFrame raw;
  raw.address.can_family = AF_CAN;
  raw.address.can_ifindex = static_cast<int>(::if_nametoindex(interface.c_str()));
  raw.frame = frame;
  return raw;
}

// In a child: no core file; the handler installed on a CAN_RAW socket bound to every interface,
// its one DAMP frame (kDampId) for vcan0. Returns the socket.
int InstallDampOnVcan0() {
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  const int fd = ::socket(PF_CAN, SOCK_RAW, CAN_RAW);
  sockaddr_can all{};
  all.can_family = AF_CAN;  // ifindex 0: every interface
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&all), sizeof all) != 0) ::_exit(3);
  static RawFrame damp;
  damp = On("vcan0", DataFrame(kDampId, {0xDA}));
  daemon::InstallFatalSignalDamp(fd, {&damp, 1}, 1);
  return fd;
}

// Runs `child` in a child process and reads vcan0 until it has been quiet for 1 s: the frames'
// ids, and the child's wait status.
struct ChildRun {
  std::vector<canid_t> seen;
  int status = 0;
};
ChildRun RunChild(const std::function<void()>& child) {
  ChildRun run;
  RawSocket bus("vcan0");
  EXPECT_TRUE(bus.ok());
  const pid_t pid = ::fork();
  EXPECT_GE(pid, 0);
  if (pid == 0) child();  // never returns: it dies of its signal or _exit()s
  while (const auto frame = bus.Read(std::chrono::milliseconds(1000))) {
    run.seen.push_back(frame->can_id);
  }
  EXPECT_EQ(::waitpid(pid, &run.status, 0), pid);
  return run;
}

// The child: the handler installed on a CAN_RAW socket bound to every interface; a control thread
// whose tick takes 5 ms and sends kTickId at its end; SIGABRT raised on the main thread mid-tick.
[[noreturn]] void CrashMidTick() {
  const int fd = InstallDampOnVcan0();
  std::atomic<bool> in_tick{false};
  std::thread control([&] {
    daemon::RegisterControlThread();
    if (!daemon::BeginControlTick()) ::_exit(4);
    in_tick = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const RawFrame tick = On("vcan0", DataFrame(kTickId, {0x01}));
    SendRaw(fd, &tick, 1, 0);
    daemon::EndControlTick();
    if (daemon::BeginControlTick()) {  // must not: the handler has started
      const RawFrame late = On("vcan0", DataFrame(kLateTickId, {0x02}));
      SendRaw(fd, &late, 1, 0);
      daemon::EndControlTick();
    }
    for (;;) ::pause();
  });
  while (!in_tick) std::this_thread::yield();
  ::raise(SIGABRT);
  ::_exit(5);  // not reached: the handler re-raises with the default action
}

TEST(FatalSignalDamp, ATickUnderWayEndsBeforeTheDampAndNoTickBeginsAfter) {
  ASSERT_EQ(VcanProblem(1), "");
  const ChildRun run = RunChild(CrashMidTick);
  ASSERT_TRUE(WIFSIGNALED(run.status)) << "the child exited " << WEXITSTATUS(run.status);
  EXPECT_EQ(WTERMSIG(run.status), SIGABRT);
  EXPECT_EQ(run.seen, (std::vector<canid_t>{kTickId, kDampId}))
      << "the tick's frame must come first, the DAMP last, and no later tick's frame";
}

// Real faults on the control thread itself, not a kill(2) from outside: the handler runs on the
// thread that faulted (it does not wait for its own tick) and the DAMP reaches the bus.
enum class Fault { kNullWrite, kDivideByZero, kTrap, kBusError };

[[noreturn]] void FaultOnTheControlThread(Fault fault) {
  InstallDampOnVcan0();
  std::thread control([fault] {
    daemon::ProvideAltStack();
    daemon::RegisterControlThread();
    if (!daemon::BeginControlTick()) ::_exit(4);
    switch (fault) {
      case Fault::kNullWrite: {
        volatile int* volatile nowhere = nullptr;
        *nowhere = 1;
        break;
      }
      case Fault::kDivideByZero: {
        volatile int zero = 0, one = 1;  // both read at run time: 1 / x would compile to a compare
        volatile int quotient = one / zero;
        (void)quotient;
        break;
      }
      case Fault::kTrap: __builtin_trap();
      case Fault::kBusError: {  // a page of a file cut shorter than its mapping
        char path[] = "/tmp/sigbus-XXXXXX";
        const int file = ::mkstemp(path);
        if (file < 0 || ::ftruncate(file, 4096) != 0) ::_exit(6);
        auto* page = static_cast<volatile char*>(
            ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0));
        ::unlink(path);
        if (page == MAP_FAILED || ::ftruncate(file, 0) != 0) ::_exit(7);
        page[0] = 1;
        break;
      }
    }
    ::_exit(5);  // not reached
  });
  control.join();
  ::_exit(5);
}

class ControlThreadFault : public testing::TestWithParam<std::pair<Fault, int>> {};

TEST_P(ControlThreadFault, SendsTheDampAndEndsWithItsSignal) {
  ASSERT_EQ(VcanProblem(1), "");
  const auto [fault, signal] = GetParam();
  const ChildRun run = RunChild([fault = fault] { FaultOnTheControlThread(fault); });
  ASSERT_TRUE(WIFSIGNALED(run.status)) << "the child exited " << WEXITSTATUS(run.status);
  EXPECT_EQ(WTERMSIG(run.status), signal) << strsignal(WTERMSIG(run.status));
  EXPECT_EQ(run.seen, (std::vector<canid_t>{kDampId}));
}

std::string FaultName(const testing::TestParamInfo<std::pair<Fault, int>>& info) {
  switch (info.param.first) {
    case Fault::kNullWrite: return "NullWrite";
    case Fault::kDivideByZero: return "DivideByZero";
    case Fault::kTrap: return "Trap";
    case Fault::kBusError: return "BusError";
  }
  return "Unknown";
}

INSTANTIATE_TEST_SUITE_P(Real, ControlThreadFault,
                         testing::Values(std::pair(Fault::kNullWrite, SIGSEGV),
                                         std::pair(Fault::kDivideByZero, SIGFPE),
                                         std::pair(Fault::kTrap, SIGILL),
                                         std::pair(Fault::kBusError, SIGBUS)),
                         FaultName);

}  // namespace
}  // namespace robot_edge::can::vcan
