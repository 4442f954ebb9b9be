// CanLink's logic over a scripted netlink (what it asks, in which order, what it remembers),
// the kernel state mapping, and the real libsocketcan on an interface that does not exist. The
// vcan case runs on a real kernel in tests/vcan/.
#include "can/socketcan/link_supervisor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <system_error>
#include <vector>

namespace robot_edge::can {
namespace {

// A scripted controller: settings and state the test sets, every call recorded.
class FakeNetlink final : public CanNetlink {
 public:
  Link link = Link::kCan;
  int can_state = CAN_STATE_ERROR_ACTIVE;
  std::uint32_t bitrate = 1'000'000;
  std::uint32_t restart_ms = 100;
  bool has_error_counters = true;
  can_berr_counter counters{12, 34};
  std::map<std::string, int> fail;  // call name -> errno it returns
  std::vector<std::string> calls;

  Link Probe(const std::string&) override { return Record("Probe") ? Link::kError : link; }
  int GetState(const std::string&, int* state) override {
    if (const int e = Record("GetState")) return e;
    *state = can_state;
    return 0;
  }
  int GetErrorCounters(const std::string&, can_berr_counter* out) override {
    if (const int e = Record("GetErrorCounters")) return e;
    if (!has_error_counters) return EIO;
    *out = counters;
    return 0;
  }
  int GetBitrate(const std::string&, std::uint32_t* out) override {
    if (const int e = Record("GetBitrate")) return e;
    *out = bitrate;
    return 0;
  }
  int GetRestartMs(const std::string&, std::uint32_t* out) override {
    if (const int e = Record("GetRestartMs")) return e;
    *out = restart_ms;
    return 0;
  }
  int Stop(const std::string&) override {
    if (const int e = Record("Stop")) return e;
    can_state = CAN_STATE_STOPPED;
    return 0;
  }
  int Start(const std::string&) override {
    if (const int e = Record("Start")) return e;
    can_state = CAN_STATE_ERROR_ACTIVE;
    return 0;
  }
  int SetBitrate(const std::string&, std::uint32_t value) override {
    if (const int e = Record("SetBitrate")) return e;
    bitrate = value;
    return 0;
  }
  int SetRestartMs(const std::string&, std::uint32_t value) override {
    if (const int e = Record("SetRestartMs")) return e;
    restart_ms = value;
    return 0;
  }
  int Restart(const std::string&) override {
    if (const int e = Record("Restart")) return e;
    can_state = CAN_STATE_ERROR_ACTIVE;
    return 0;
  }

  // The calls that change something.
  std::vector<std::string> Changes() const {
    std::vector<std::string> out;
    for (const std::string& c : calls) {
      if (c.rfind("Get", 0) != 0 && c != "Probe") out.push_back(c);
    }
    return out;
  }

 private:
  int Record(const std::string& call) {
    calls.push_back(call);
    const auto it = fail.find(call);
    return it == fail.end() ? 0 : it->second;
  }
};

BusConfig Bus(std::uint32_t bitrate, std::uint32_t restart_ms) {
  BusConfig bus;
  bus.name = "left_leg";
  bus.interface = "can0";
  bus.bitrate = bitrate;
  bus.restart_ms = restart_ms;
  return bus;
}

using Strings = std::vector<std::string>;
using Result = CanLink::ConfigureResult;
using Restart = CanLink::RestartResult;

TEST(FromKernelState, MatchesTheEdgeProtocolNumbering) {
  EXPECT_EQ(FromKernelState(CAN_STATE_ERROR_ACTIVE), CanControllerState::kErrorActive);
  EXPECT_EQ(FromKernelState(CAN_STATE_ERROR_WARNING), CanControllerState::kErrorWarning);
  EXPECT_EQ(FromKernelState(CAN_STATE_ERROR_PASSIVE), CanControllerState::kErrorPassive);
  EXPECT_EQ(FromKernelState(CAN_STATE_BUS_OFF), CanControllerState::kBusOff);
  EXPECT_EQ(FromKernelState(CAN_STATE_STOPPED), CanControllerState::kStopped);
  EXPECT_EQ(FromKernelState(CAN_STATE_SLEEPING), CanControllerState::kStopped);
  EXPECT_EQ(FromKernelState(CAN_STATE_MAX), CanControllerState::kUnknown);
  EXPECT_EQ(FromKernelState(-1), CanControllerState::kUnknown);
  // proto/edge_cloud.proto CanControllerState.
  EXPECT_EQ(static_cast<int>(CanControllerState::kUnknown), 0);
  EXPECT_EQ(static_cast<int>(CanControllerState::kErrorActive), 1);
  EXPECT_EQ(static_cast<int>(CanControllerState::kErrorWarning), 2);
  EXPECT_EQ(static_cast<int>(CanControllerState::kErrorPassive), 3);
  EXPECT_EQ(static_cast<int>(CanControllerState::kBusOff), 4);
  EXPECT_EQ(static_cast<int>(CanControllerState::kStopped), 5);
  EXPECT_STREQ(ToString(CanControllerState::kBusOff), "bus-off");
}

TEST(CanLinkConfigure, BitrateZeroAsksNothing) {
  FakeNetlink netlink;
  CanLink controller("can0", Bus(0, 100), &netlink);
  EXPECT_EQ(controller.Configure(), Result::kKept);
  EXPECT_TRUE(netlink.calls.empty());
}

TEST(CanLinkConfigure, MatchingSettingsAreLeftAlone) {
  FakeNetlink netlink;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  EXPECT_EQ(controller.Configure(), Result::kUnchanged);
  EXPECT_EQ(netlink.Changes(), Strings{});
  EXPECT_EQ(controller.support(), ControllerSupport::kSupported);
}

TEST(CanLinkConfigure, ADifferentBitrateTakesTheLinkDownSetsItAndBringsItUp) {
  FakeNetlink netlink;
  netlink.bitrate = 500'000;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  EXPECT_EQ(controller.Configure(), Result::kChanged);
  EXPECT_EQ(netlink.Changes(), (Strings{"Stop", "SetBitrate", "Start"}));
  EXPECT_EQ(netlink.bitrate, 1'000'000u);
}

TEST(CanLinkConfigure, OnlyWhatDiffersIsSet) {
  FakeNetlink netlink;
  netlink.restart_ms = 0;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  EXPECT_EQ(controller.Configure(), Result::kChanged);
  EXPECT_EQ(netlink.Changes(), (Strings{"Stop", "SetRestartMs", "Start"}));
  EXPECT_EQ(netlink.restart_ms, 100u);

  FakeNetlink both;
  both.bitrate = 250'000;
  both.restart_ms = 100;
  CanLink controller2("can0", Bus(1'000'000, 0), &both);
  EXPECT_EQ(controller2.Configure(), Result::kChanged);
  EXPECT_EQ(both.Changes(), (Strings{"Stop", "SetBitrate", "SetRestartMs", "Start"}));
  EXPECT_EQ(both.restart_ms, 0u);
}

TEST(CanLinkConfigure, AStoppedLinkWithTheRightSettingsIsBroughtUp) {
  FakeNetlink netlink;
  netlink.can_state = CAN_STATE_STOPPED;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  EXPECT_EQ(controller.Configure(), Result::kUnchanged);
  EXPECT_EQ(netlink.Changes(), Strings{"Start"});
}

// The message of a start-up failure names the interface and the step.
std::string ConfigureError(CanLink& controller) {
  try {
    controller.Configure();
  } catch (const std::system_error& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(CanLinkConfigure, AFailedSetIsAStartUpErrorAndTheLinkComesBackUp) {
  FakeNetlink netlink;
  netlink.bitrate = 500'000;
  netlink.fail["SetBitrate"] = EINVAL;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  const std::string message = ConfigureError(controller);
  EXPECT_NE(message.find("can0"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot set the bitrate to 1000000 bit/s"), std::string::npos) << message;
  EXPECT_EQ(netlink.Changes(), (Strings{"Stop", "SetBitrate", "Start"}));
}

TEST(CanLinkConfigure, NoPermissionIsAStartUpError) {
  FakeNetlink netlink;
  netlink.bitrate = 500'000;
  netlink.fail["Stop"] = EPERM;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  const std::string message = ConfigureError(controller);
  EXPECT_NE(message.find("can0: cannot take the link down"), std::string::npos) << message;
  EXPECT_NE(message.find(std::generic_category().message(EPERM)), std::string::npos) << message;
  EXPECT_EQ(netlink.Changes(), Strings{"Stop"});
}

TEST(CanLinkConfigure, AbsentInterfaceIsAStartUpError) {
  FakeNetlink netlink;
  netlink.link = CanNetlink::Link::kAbsent;
  CanLink controller("can7", Bus(1'000'000, 100), &netlink);
  EXPECT_NE(ConfigureError(controller).find("can7: no such CAN interface"), std::string::npos);
  EXPECT_EQ(controller.support(), ControllerSupport::kAbsent);
}

TEST(CanLinkConfigure, ControllerThatDoesNotAnswerIsAStartUpError) {
  FakeNetlink netlink;
  netlink.link = CanNetlink::Link::kError;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  EXPECT_NE(ConfigureError(controller).find("can0: the CAN controller does not answer"),
            std::string::npos);
}

// vcan: unsupported, said once, remembered; nothing is set and nothing fails.
TEST(CanLinkConfigure, UnsupportedIsRememberedAndNeverAskedAgain) {
  FakeNetlink netlink;
  netlink.link = CanNetlink::Link::kNotCan;
  CanLink controller("vcan0", Bus(1'000'000, 0), &netlink);
  EXPECT_EQ(controller.Configure(), Result::kUnsupported);
  EXPECT_EQ(controller.support(), ControllerSupport::kUnsupported);
  EXPECT_EQ(netlink.calls, Strings{"Probe"});
  for (int i = 0; i < 10; ++i) {
    EXPECT_FALSE(controller.Poll().has_value());
    EXPECT_EQ(controller.MaybeRestart(i * 10'000), Restart::kNotNeeded);
  }
  EXPECT_EQ(netlink.calls, Strings{"Probe"}) << "no netlink round trip after the first";
}

TEST(CanLinkPoll, ReportsStateAndErrorCounters) {
  FakeNetlink netlink;
  netlink.can_state = CAN_STATE_ERROR_PASSIVE;
  netlink.counters = {130, 7};
  CanLink controller("can0", Bus(0, 100), &netlink);
  const auto status = controller.Poll();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->state, CanControllerState::kErrorPassive);
  EXPECT_TRUE(status->has_error_counters);
  EXPECT_EQ(status->tx_errors, 130);
  EXPECT_EQ(status->rx_errors, 7);
  netlink.can_state = CAN_STATE_BUS_OFF;
  EXPECT_EQ(controller.Poll()->state, CanControllerState::kBusOff);
}

TEST(CanLinkPoll, ProbesOnceThenOnlyReads) {
  FakeNetlink netlink;
  CanLink controller("can0", Bus(0, 100), &netlink);
  controller.Poll();
  controller.Poll();
  EXPECT_EQ(netlink.calls,
            (Strings{"Probe", "GetState", "GetErrorCounters", "GetState", "GetErrorCounters"}));
}

TEST(CanLinkPoll, DriverWithoutErrorCountersIsAskedOnce) {
  FakeNetlink netlink;
  netlink.has_error_counters = false;
  CanLink controller("can0", Bus(0, 100), &netlink);
  for (int i = 0; i < 3; ++i) {
    const auto status = controller.Poll();
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(status->state, CanControllerState::kErrorActive);
    EXPECT_FALSE(status->has_error_counters);
  }
  EXPECT_EQ(std::count(netlink.calls.begin(), netlink.calls.end(), "GetErrorCounters"), 1);
}

TEST(CanLinkPoll, VanishedInterfaceIsAbsentUntilItReturns) {
  FakeNetlink netlink;
  CanLink controller("can0", Bus(0, 100), &netlink);
  ASSERT_TRUE(controller.Poll().has_value());
  netlink.fail["GetState"] = ENODEV;  // unplugged
  netlink.link = CanNetlink::Link::kAbsent;
  EXPECT_FALSE(controller.Poll().has_value());
  EXPECT_FALSE(controller.Poll().has_value());
  EXPECT_EQ(controller.support(), ControllerSupport::kAbsent);
  netlink.fail.clear();  // plugged in again
  netlink.link = CanNetlink::Link::kCan;
  ASSERT_TRUE(controller.Poll().has_value());
  EXPECT_EQ(controller.support(), ControllerSupport::kSupported);
}

// restart_ms == 0: the daemon restarts a bus-off controller, at most every kRestartIntervalMs.
TEST(CanLinkMaybeRestart, RestartsBusOffWhenRestartMsIsZeroRateLimited) {
  FakeNetlink netlink;
  netlink.restart_ms = 0;
  CanLink controller("can0", Bus(1'000'000, 0), &netlink);
  ASSERT_EQ(controller.Configure(), Result::kUnchanged);
  ASSERT_TRUE(controller.Poll().has_value());
  EXPECT_EQ(controller.MaybeRestart(0), Restart::kNotNeeded) << "error-active";

  netlink.can_state = CAN_STATE_BUS_OFF;
  netlink.fail["Restart"] = EBUSY;  // the first attempt fails
  ASSERT_EQ(controller.Poll()->state, CanControllerState::kBusOff);
  EXPECT_EQ(controller.MaybeRestart(10'000), Restart::kFailed);
  EXPECT_EQ(controller.MaybeRestart(10'500), Restart::kRateLimited);
  EXPECT_EQ(controller.MaybeRestart(10'999), Restart::kRateLimited);
  netlink.fail.clear();
  EXPECT_EQ(controller.MaybeRestart(11'000), Restart::kRestarted);
  EXPECT_EQ(std::count(netlink.calls.begin(), netlink.calls.end(), "Restart"), 2);

  ASSERT_EQ(controller.Poll()->state, CanControllerState::kErrorActive);
  EXPECT_EQ(controller.MaybeRestart(20'000), Restart::kNotNeeded);
  EXPECT_EQ(std::count(netlink.calls.begin(), netlink.calls.end(), "Restart"), 2);
}

TEST(CanLinkMaybeRestart, KernelRestartsWhenRestartMsIsSet) {
  FakeNetlink netlink;
  netlink.can_state = CAN_STATE_BUS_OFF;
  CanLink controller("can0", Bus(1'000'000, 100), &netlink);
  ASSERT_EQ(controller.Poll()->state, CanControllerState::kBusOff);
  EXPECT_EQ(controller.MaybeRestart(0), Restart::kNotNeeded);
  EXPECT_EQ(std::count(netlink.calls.begin(), netlink.calls.end(), "Restart"), 0);
}

TEST(CanLinkMaybeRestart, NothingBeforeThePollSaysBusOff) {
  FakeNetlink netlink;
  netlink.can_state = CAN_STATE_BUS_OFF;
  CanLink controller("can0", Bus(1'000'000, 0), &netlink);
  EXPECT_EQ(controller.MaybeRestart(0), Restart::kNotNeeded);
  EXPECT_TRUE(netlink.calls.empty());
}

// The real libsocketcan, no hardware needed: an interface that does not exist.
TEST(LibSocketCan, AbsentInterfaceIsReportedCleanly) {
  const std::string name = "re-absent0";
  EXPECT_EQ(LibSocketCan().Probe(name), CanNetlink::Link::kAbsent);
  CanLink controller(name, Bus(0, 0));
  EXPECT_FALSE(controller.Poll().has_value());
  EXPECT_EQ(controller.support(), ControllerSupport::kAbsent);
  EXPECT_EQ(controller.MaybeRestart(0), Restart::kNotNeeded);
  EXPECT_EQ(controller.Configure(), Result::kKept);

  CanLink configured(name, Bus(1'000'000, 0));
  try {
    configured.Configure();
    ADD_FAILURE() << "Configure() of an absent interface must throw";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("re-absent0: no such CAN interface"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.code().value(), ENODEV);
  }
}

TEST(LibSocketCan, LoopbackIsNotACanController) {
  // Every Linux network namespace has "lo": it exists, without CAN attributes or a device.
  EXPECT_EQ(LibSocketCan().Probe("lo"), CanNetlink::Link::kNotCan);
  CanLink controller("lo", Bus(1'000'000, 0));
  EXPECT_EQ(controller.Configure(), Result::kUnsupported);
  EXPECT_FALSE(controller.Poll().has_value());
  EXPECT_EQ(controller.support(), ControllerSupport::kUnsupported);
}

// A simulated robot's buses are virtual links: no CAN controller and no device (vcan, vxcan).
TEST(VirtualCanLink, OnlyALinkWithoutControllerOrDeviceIsVirtual) {
  FakeNetlink netlink;
  netlink.link = CanNetlink::Link::kNotCan;
  EXPECT_TRUE(IsVirtualCanLink("vcan0", &netlink));
  for (auto link : {CanNetlink::Link::kCan, CanNetlink::Link::kError, CanNetlink::Link::kAbsent}) {
    netlink.link = link;
    EXPECT_FALSE(IsVirtualCanLink("can0", &netlink));
  }
}

}  // namespace
}  // namespace robot_edge::can
