// One daemon per CAN interface: a claimed interface cannot be claimed again until its holder
// lets go (here in one process; the kernel releases the name when a daemon exits however it
// ends).
#include "daemon/bus_lock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace robot_edge::daemon {
namespace {

// Names no real interface has, unique to this test process.
std::string TestInterface(const char* suffix) {
  return "test" + std::to_string(::getpid()) + suffix;
}

TEST(BusLocks, ASecondClaimOfAnInterfaceFailsNamingIt) {
  const std::string can0 = TestInterface("a");
  BusLocks first;
  first.Claim(can0);
  BusLocks second;
  try {
    second.Claim(can0);
    FAIL() << "claimed twice";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another robot-edged already drives " + can0),
              std::string::npos)
        << e.what();
  }
  second.Claim(TestInterface("b"));  // other interfaces are free
}

TEST(BusLocks, TheClaimEndsWithItsHolder) {
  const std::string can0 = TestInterface("c");
  {
    BusLocks holder;
    holder.Claim(can0);
  }
  BusLocks next;
  EXPECT_NO_THROW(next.Claim(can0));
}

}  // namespace
}  // namespace robot_edge::daemon
