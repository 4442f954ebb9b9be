// Who may take which role: peer credentials on the Unix socket, per-role tokens over TCP.
#include "daemon/api/access.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "access/tokens.hpp"

namespace robot_edge::daemon {
namespace {

constexpr uid_t kSelf = 990;  // robot-edged's own uid in these tests

Peer UnixUser(uid_t uid, gid_t gid, std::vector<gid_t> groups = {}) {
  Peer p;
  p.transport = Transport::kUnix;
  p.has_credentials = true;
  p.uid = uid;
  p.gid = gid;
  p.groups = std::move(groups);
  return p;
}

Peer Tcp(bool loopback) {
  Peer p;
  p.transport = Transport::kTcp;
  p.loopback = loopback;
  return p;
}

AccessPolicy Policy(bool allow_loopback = false) {
  return AccessPolicy({{"cloud", {1001}, {2001}, "cloud-secret"}, {"observer", {}, {2002}, ""}},
                      kSelf, allow_loopback);
}

TEST(Access, RootAndTheDaemonsOwnUserMayTakeEveryRole) {
  const AccessPolicy p = Policy();
  for (uid_t uid : {uid_t{0}, kSelf}) {
    for (const char* role : {"cloud", "ble", ""}) {
      EXPECT_FALSE(p.Refusal(role, UnixUser(uid, 100), "")) << uid << " " << role;
    }
  }
}

TEST(Access, AUnixUserTakesOnlyTheRolesGrantedToItsUidOrGroups) {
  const AccessPolicy p = Policy();
  EXPECT_FALSE(p.Refusal("cloud", UnixUser(1001, 100), "")) << "by uid";
  EXPECT_FALSE(p.Refusal("cloud", UnixUser(1500, 2001), "")) << "by primary group";
  EXPECT_FALSE(p.Refusal("cloud", UnixUser(1500, 100, {5, 2001}), "")) << "supplementary";
  const auto impostor = p.Refusal("cloud", UnixUser(1500, 100, {5}), "cloud-secret");
  ASSERT_TRUE(impostor) << "a token does not help on the Unix socket";
  EXPECT_EQ(*impostor,
            "uid 1500 may not connect as 'cloud' (not in api.access.cloud.users or "
            ".groups)");
  const auto ble = p.Refusal("ble", UnixUser(1001, 100), "");
  ASSERT_TRUE(ble);
  EXPECT_EQ(*ble, "uid 1001 may not connect as 'ble' (api.access.ble grants it to nobody)");
}

TEST(Access, ObservingIsOpenUnlessTheObserverRoleIsGranted) {
  EXPECT_FALSE(AccessPolicy({}, kSelf, false).Refusal("", UnixUser(1500, 100), ""));
  const AccessPolicy p = Policy();
  EXPECT_TRUE(p.Refusal("", UnixUser(1500, 100), ""));
  EXPECT_FALSE(p.Refusal("", UnixUser(1500, 100, {2002}), ""));
}

TEST(Access, UnreadableCredentialsAreNobody) {
  Peer p;
  p.transport = Transport::kUnix;
  EXPECT_TRUE(AccessPolicy({}, kSelf, false).Refusal("", p, ""));
}

TEST(Access, TcpNeedsTheRolesOwnToken) {
  const AccessPolicy p = Policy();
  EXPECT_FALSE(p.Refusal("cloud", Tcp(false), "cloud-secret"));
  EXPECT_EQ(*p.Refusal("cloud", Tcp(false), "cloud-secreT"), "invalid token for 'cloud'");
  EXPECT_EQ(*p.Refusal("cloud", Tcp(true), ""), "'cloud' needs its token over TCP");
  EXPECT_EQ(*p.Refusal("ble", Tcp(false), "cloud-secret"),
            "'ble' cannot connect over TCP (api.access.ble.token_file is not set)");
  EXPECT_TRUE(p.Refusal("", Tcp(true), "")) << "observer has no token";
}

TEST(Access, LoopbackWithoutATokenOnlyWhenTheConfigSaysSo) {
  EXPECT_TRUE(Policy(false).Refusal("ble", Tcp(true), ""));
  EXPECT_FALSE(Policy(true).Refusal("ble", Tcp(true), ""));
  EXPECT_TRUE(Policy(true).Refusal("ble", Tcp(false), "")) << "only from loopback";
}

TEST(Access, LoadReadsTokenFilesAndWarnsAboutNamesAndModes) {
  char dir[] = "/tmp/robot-edge-access.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string token = std::string(dir) + "/cloud.token";
  std::ofstream(token) << "s3cret-s3cret-s3cret\n";
  ::chmod(token.c_str(), 0644);
  config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  c.api.access = {{"cloud", {"no-such-user-here"}, {"no-such-group-here"}, "cloud.token", token}};
  const AccessPolicy p = AccessPolicy::Load(c, kSelf);
  EXPECT_FALSE(p.Refusal("cloud", Tcp(false), "s3cret-s3cret-s3cret"))
      << "the newline is not the token's";
  ASSERT_EQ(p.warnings().size(), 3u);
  EXPECT_NE(p.warnings()[0].find("no user 'no-such-user-here'"), std::string::npos);
  EXPECT_NE(p.warnings()[1].find("no group 'no-such-group-here'"), std::string::npos);
  EXPECT_NE(p.warnings()[2].find("every user of this machine can read it"), std::string::npos);
  EXPECT_EQ(p.warnings()[2].find("s3cret"), std::string::npos) << "a token is never printed";

  std::ofstream(token) << "\n";
  try {
    AccessPolicy::Load(c, kSelf);
    ADD_FAILURE() << "an empty token file was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "api.access.cloud.token_file: " + token + " is empty");
  }
  // 15 bytes after the newline is dropped: one short of access::kMinApiTokenBytes.
  std::ofstream(token) << "fifteen-bytes-x\n";
  try {
    AccessPolicy::Load(c, kSelf);
    ADD_FAILURE() << "a 15-byte token was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "api.access.cloud.token_file: " + token +
                                         " holds a token of 15 bytes; at least 16 are required "
                                         "(e.g. head -c 24 /dev/urandom | base64 > " +
                                         token + ")");
    EXPECT_THROW(CheckApiTokenFiles(c), std::runtime_error) << "--check-config says so too";
  }
  std::ofstream(token) << "sixteen-bytes-xy\n";
  EXPECT_NO_THROW(AccessPolicy::Load(c, kSelf));
  EXPECT_NO_THROW(CheckApiTokenFiles(c));
  ::unlink(token.c_str());
  EXPECT_THROW(AccessPolicy::Load(c, kSelf), std::runtime_error) << "a missing token file";
  EXPECT_THROW(CheckApiTokenFiles(c), std::runtime_error) << "--check-config refuses it too";
  EXPECT_TRUE(TokenFileWarnings(c).empty()) << "an error, not also a warning";
  ::rmdir(dir);
}

Peer TcpFrom(const std::string& address) {
  Peer p = Tcp(false);
  p.address = address;
  return p;
}

// Guessing tokens: the first wrong one is a typo and costs nothing; from the second on its address
// waits (250 ms, then doubling), and while it waits even the right token is refused uncompared.
// Another address is not slowed; a right token after the wait starts the count again.
TEST(Access, WrongTokensMakeTheirAddressWait) {
  using access::WrongTokenDelay;
  const AccessPolicy p = Policy();
  const Peer guesser = TcpFrom("10.0.0.9"), other = TcpFrom("10.0.0.7");
  const std::string kGuesserAsCloud = AccessPolicy::WaitKey("10.0.0.9", "cloud");
  const WrongTokenDelay::Clock::time_point t0{std::chrono::hours(1)};
  EXPECT_EQ(*p.Refusal("cloud", guesser, "guess-1", t0), "invalid token for 'cloud'");
  EXPECT_EQ(*p.Refusal("cloud", guesser, "guess-2", t0), "invalid token for 'cloud'");
  EXPECT_EQ(*p.Refusal("cloud", guesser, "cloud-secret", t0 + std::chrono::milliseconds(100)),
            "a wrong token for 'cloud' came from 10.0.0.9: its Hellos as 'cloud' are refused for "
            "150 ms more");
  EXPECT_TRUE(p.wrong_tokens()->Left(kGuesserAsCloud, t0 + std::chrono::milliseconds(249)));
  EXPECT_FALSE(p.Refusal("cloud", other, "cloud-secret", t0)) << "another address is not slowed";
  EXPECT_EQ(*p.Refusal("ble", guesser, "x", t0 + std::chrono::milliseconds(100)),
            "'ble' cannot connect over TCP (api.access.ble.token_file is not set)")
      << "the same address as another controller does not wait";
  EXPECT_TRUE(p.Refusal("cloud", guesser, "guess-3", t0 + std::chrono::milliseconds(250)));
  EXPECT_EQ(p.wrong_tokens()->Left(kGuesserAsCloud, t0 + std::chrono::milliseconds(250)),
            std::chrono::milliseconds(500));
  EXPECT_FALSE(p.Refusal("cloud", guesser, "cloud-secret", t0 + std::chrono::milliseconds(750)));
  EXPECT_EQ(p.wrong_tokens()->remembered(), 0u) << "a right token starts the count again";
  EXPECT_TRUE(p.Refusal("cloud", guesser, "guess-4", t0 + std::chrono::seconds(1)));
  EXPECT_FALSE(p.wrong_tokens()->Left(kGuesserAsCloud, t0 + std::chrono::seconds(1)));
  EXPECT_TRUE(p.Refusal("", guesser, "", t0)) << "an empty token is not a guess";
}

// A token is a role over TCP: a token file its group (on a packaged install, the observers')
// can read hands that role to every member. Warned at start (Load) and by --check-config.
TEST(TokenFiles, AnyoneButTheOwnerAbleToReadOneIsWarnedAbout) {
  EXPECT_FALSE(access::TokenFileExposure("k", "/t", S_IFREG | 0600));
  EXPECT_FALSE(access::TokenFileExposure("k", "/t", S_IFREG | 0400));
  const auto group = access::TokenFileExposure("api.access.cloud.token_file", "/t", S_IFREG | 0640);
  ASSERT_TRUE(group);
  EXPECT_EQ(*group,
            "api.access.cloud.token_file: /t is mode 0640: its group can read it (the observers' "
            "group, robot-edge, on a packaged install), and whoever reads it holds what the token "
            "grants. Make it readable by robot-edged's user only: chmod 0600 /t, owned by that "
            "user");
  EXPECT_NE(access::TokenFileExposure("k", "/t", S_IFREG | 0644)->find("every user"),
            std::string::npos);
  EXPECT_NE(access::TokenFileExposure("k", "/t", S_IFREG | 0620)->find("write"), std::string::npos);
}

TEST(TokenFiles, LoadAndCheckConfigWarnAboutAGroupReadableOne) {
  char dir[] = "/tmp/robot-edge-access.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string token = std::string(dir) + "/cloud.token";
  const std::string live = std::string(dir) + "/live.token";
  std::ofstream(token) << "s3cret-s3cret-s3cret\n";
  std::ofstream(live) << "v1ew\n";
  ::chmod(token.c_str(), 0640);
  ::chmod(live.c_str(), 0600);
  config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  c.api.access = {{"cloud", {}, {}, "cloud.token", token}};
  c.live.address = "127.0.0.1:0";
  c.live.token_path = live;
  c.live.operator_token_path = std::string(dir) + "/missing.token";
  const AccessPolicy p = AccessPolicy::Load(c, kSelf);
  ASSERT_EQ(p.warnings().size(), 1u);
  EXPECT_NE(p.warnings()[0].find(token + " is mode 0640: its group can read it"), std::string::npos)
      << p.warnings()[0];
  const std::vector<std::string> w = TokenFileWarnings(c);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], *access::TokenFileExposure("api.access.cloud.token_file", token, S_IFREG | 0640));
  EXPECT_EQ(w[1], "live.operator_token_file: " + std::string(dir) +
                      "/missing.token: No such file or directory: the live view will not open");
  ::chmod(token.c_str(), 0600);
  EXPECT_TRUE(AccessPolicy::Load(c, kSelf).warnings().empty());
  EXPECT_EQ(TokenFileWarnings(c).size(), 1u) << "only the missing one";
  ::unlink(token.c_str());
  ::unlink(live.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace robot_edge::daemon
