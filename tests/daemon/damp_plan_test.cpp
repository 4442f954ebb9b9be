// The DAMP plan the daemon leaves for --emergency-damp: its format, its checksum, and how it is
// written (atomically, never through a planted file).
#include "daemon/damp_plan.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/library_options.hpp"
#include "daemon/api/atomic_file.hpp"

namespace robot_edge::daemon {
namespace {

can_frame Frame(std::uint32_t id, std::initializer_list<std::uint8_t> data) {
  can_frame f{};
  f.can_id = id;
  f.len = static_cast<std::uint8_t>(data.size());
  std::copy(data.begin(), data.end(), f.data);
  return f;
}

DampPlan SmallPlan() {
  DampPlan p;
  p.source = "robot-edged test";
  p.buses.push_back({"can0",
                     {Frame(1, {0x7f, 0xff, 0x7f, 0xf0, 0x00, 0x00, 0x0c, 0xcc})},
                     {Frame(1, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd})}});
  p.buses.push_back({"can1", {Frame(0x80000105 /* EFF */, {0x01, 0x02})}, {}});
  return p;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/robot-edge-plan-test.XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(DampPlan, Crc32IsZlibs) { EXPECT_EQ(Crc32("123456789"), 0xCBF43926u); }

TEST(DampPlan, TheTextIsVersionedOneLinePerFrameAndChecksummed) {
  const std::string text = EncodeDampPlan(SmallPlan());
  const std::string body =
      "robot-edge damp-plan 1\n"
      "source robot-edged test\n"
      "bus can0 1 1\n"
      "d 00000001 8 7fff7ff000000ccc\n"
      "x 00000001 8 fffffffffffffffd\n"
      "bus can1 1 0\n"
      "d 80000105 2 0102\n";
  char crc[32];
  std::snprintf(crc, sizeof(crc), "crc32 %08x\n", Crc32(body));
  EXPECT_EQ(text, body + crc);
}

TEST(DampPlan, DecodesWhatItEncodes) {
  DampPlan plan;
  plan.source = "robot-edged 0.1.0 pid 1 config robot-edge.yaml";
  config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  plan.buses = can::DampPlanOf(config::WiringOf(c));
  DampPlan back;
  std::string error;
  ASSERT_TRUE(DecodeDampPlan(EncodeDampPlan(plan), &back, &error)) << error;
  EXPECT_EQ(back.source, plan.source);
  ASSERT_EQ(back.buses.size(), plan.buses.size());
  for (std::size_t b = 0; b < plan.buses.size(); ++b) {
    EXPECT_EQ(back.buses[b].interface, plan.buses[b].interface);
    ASSERT_EQ(back.buses[b].damp.size(), plan.buses[b].damp.size());
    ASSERT_EQ(back.buses[b].exit.size(), plan.buses[b].exit.size());
    for (std::size_t i = 0; i < plan.buses[b].damp.size(); ++i) {
      EXPECT_EQ(0, std::memcmp(&back.buses[b].damp[i], &plan.buses[b].damp[i], sizeof(can_frame)));
      EXPECT_EQ(0, std::memcmp(&back.buses[b].exit[i], &plan.buses[b].exit[i], sizeof(can_frame)));
    }
  }
}

// Every single-byte change anywhere in the file makes the whole plan unusable.
TEST(DampPlan, AnyChangedByteIsDetected) {
  const std::string good = EncodeDampPlan(SmallPlan());
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    DampPlan plan;
    std::string error;
    EXPECT_FALSE(DecodeDampPlan(bad, &plan, &error)) << "byte " << i << " changed:\n" << bad;
    EXPECT_FALSE(error.empty());
  }
}

TEST(DampPlan, TruncatedExtendedOrOfAnotherVersionIsRefusedWithTheReason) {
  const std::string good = EncodeDampPlan(SmallPlan());
  DampPlan plan;
  std::string error;
  EXPECT_FALSE(DecodeDampPlan(good.substr(0, good.rfind("crc32")), &plan, &error));
  EXPECT_EQ(error, "line 8: no crc32 line (truncated?)");
  EXPECT_FALSE(DecodeDampPlan(good.substr(0, good.size() - 1), &plan, &error)) << "no last \\n";
  EXPECT_FALSE(DecodeDampPlan(good + "bus can2 0 0\n", &plan, &error));
  EXPECT_EQ(error, "line 8: bytes after the checksum");
  EXPECT_FALSE(DecodeDampPlan("", &plan, &error));
  std::string v2 = good;
  v2[21] = '2';
  EXPECT_FALSE(DecodeDampPlan(v2, &plan, &error));
  EXPECT_EQ(error.rfind("line 1: not 'robot-edge damp-plan 1'", 0), 0u) << error;
  // A count that does not match its frames, with a checksum that does.
  std::string body = good.substr(0, good.rfind("crc32"));
  body.replace(body.find("bus can0 1 1"), 12, "bus can0 2 1");
  char crc[32];
  std::snprintf(crc, sizeof(crc), "crc32 %08x\n", Crc32(body));
  EXPECT_FALSE(DecodeDampPlan(body + crc, &plan, &error));
  EXPECT_EQ(error, "line 5: expected a 'd' frame");
  EXPECT_TRUE(DecodeDampPlan(good, &plan, &error)) << error;
}

TEST(DampPlan, LivesInTheRuntimeDirectory) {
  EXPECT_EQ(DampPlanPath(nullptr), "/run/robot-edge/damp-plan");
  EXPECT_EQ(DampPlanPath(""), "/run/robot-edge/damp-plan");
  EXPECT_EQ(DampPlanPath("/run/robot-edge"), "/run/robot-edge/damp-plan");
  EXPECT_EQ(DampPlanPath("/run/a:/run/b"), "/run/a/damp-plan");
}

TEST(DampPlan, WrittenWholeWithMode0640AndNothingLeftBeside) {
  TempDir dir;
  const std::string path = dir.path() + "/damp-plan";
  std::ofstream(path) << "an old plan";
  ASSERT_EQ(WriteDampPlan(path, SmallPlan()), "");
  EXPECT_EQ(Slurp(path), EncodeDampPlan(SmallPlan()));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u) << "no temporary file left";
  EXPECT_NE(WriteDampPlan(dir.path() + "/missing/damp-plan", SmallPlan()).find("missing"),
            std::string::npos);
}

// The calibration file was written through "<file>.tmp": a file planted there (a symlink to
// anything the daemon may write) received the offsets. The temporary file is now always new.
TEST(AtomicFile, NeverWritesThroughAPlantedTemporaryFile) {
  TempDir dir;
  const std::string path = dir.path() + "/calibration.yaml";
  const std::string victim = dir.path() + "/victim";
  std::ofstream(victim) << "keep me";
  ASSERT_EQ(::symlink(victim.c_str(), (path + ".tmp").c_str()), 0);
  ASSERT_EQ(WriteFileAtomically(path, "offsets: {}\n", 0644), "");
  EXPECT_EQ(Slurp(path), "offsets: {}\n");
  EXPECT_EQ(Slurp(victim), "keep me");
}

}  // namespace
}  // namespace robot_edge::daemon
