// The Uploader with libcurl against a local HTTP server that stores what it is sent
// (put_server.py): the stored bytes' SHA-256 is the file's, a dropped connection or a 500 is
// retried to completion, a 403 is reported with its status, http:// is refused unless allowed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "uplink/sha256.hpp"
#include "uplink/upload.hpp"

namespace robot_edge::uplink {
namespace {

using namespace std::chrono_literals;
using State = UploadReport::State;

std::string Read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class PutServer : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/upload_http_test.XXXXXX";
    ASSERT_NE(::mkdtemp(path), nullptr);
    dir_ = path;
    ASSERT_EQ(::mkdir((dir_ + "/rec").c_str(), 0700), 0);
    ASSERT_EQ(::mkdir((dir_ + "/got").c_str(), 0700), 0);
    bytes_.resize(3 << 20);
    for (std::size_t i = 0; i < bytes_.size(); ++i) bytes_[i] = static_cast<char>(i * 131 >> 3);
    std::ofstream(dir_ + "/rec/bb.mcap", std::ios::binary) << bytes_;
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    std::system(("rm -rf " + dir_).c_str());
  }
  // Starts put_server.py; fail_first "" = every PUT succeeds; tls: HTTPS with the test PKI's
  // server certificate (pki_: make_test_pki.sh's CA `ca`, and an unrelated `other`).
  // `more`: more arguments (--gcs, --cut-at F).
  void Start(const std::string& fail_first, bool tls = false,
             const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"python3", ROBOT_EDGE_PUT_SERVER, dir_ + "/got"};
    args.insert(args.end(), more.begin(), more.end());
    if (!fail_first.empty()) args.insert(args.end(), {"--fail-first", fail_first});
    if (tls) {
      pki_ = dir_ + "/pki";
      ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki_).c_str()), 0);
      args.insert(args.end(), {"--tls", pki_ + "/server.pem", pki_ + "/server.key"});
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::execvp("python3", argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    char line[16] = {};
    ASSERT_GT(::read(out[0], line, sizeof line - 1), 0);
    ::close(out[0]);
    url_ = std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(std::atoi(line)) +
           "/bucket/bb.mcap?X-Amz-Sig=1";
  }
  // Uploads rec/bb.mcap; every report until the job ends (30 s at most). `chunk_bytes` > 0: as a
  // GCS resumable session in chunks of that size.
  std::vector<UploadReport> Upload(bool allow_plain_http = true, const std::string& ca = "",
                                   std::uint64_t chunk_bytes = 0) {
    Uploader uploader(
        [&](const std::atomic<bool>* abort) {
          return MakeCurlTransport(ca, allow_plain_http, abort);
        },
        4, Backoff{3, 200'000, 1'000'000});
    const std::int64_t expires = std::time(nullptr) + 600;
    UploadJob job{{"job-9", "bb.mcap", url_, expires, true}, dir_ + "/rec", 64 << 20, false};
    job.request.resumable = chunk_bytes > 0;
    if (chunk_bytes > 0) job.chunk_bytes = chunk_bytes;
    EXPECT_TRUE(uploader.Submit(job));
    std::vector<UploadReport> reports;
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      for (UploadReport& r : uploader.Take()) reports.push_back(std::move(r));
      if (!reports.empty() &&
          (reports.back().state == State::kOk || reports.back().state == State::kError)) {
        break;
      }
      std::this_thread::sleep_for(20ms);
    }
    failures_ = uploader.failures();
    return reports;
  }

  std::string dir_, url_, bytes_, pki_;
  pid_t pid_ = -1;
  std::uint64_t failures_ = 0;
};

TEST_F(PutServer, StoredBytesHaveTheFilesSha256AndTheChecksumHeader) {
  Start("");
  const auto reports = Upload();
  ASSERT_FALSE(reports.empty());
  ASSERT_EQ(reports.back().state, State::kOk) << reports.back().reason;
  EXPECT_EQ(reports.back().attempt, 1);
  const std::string stored = Read(dir_ + "/got/bb.mcap");
  EXPECT_EQ(stored.size(), bytes_.size());
  EXPECT_EQ(Hex(Sha256Of(stored)), Hex(Sha256Of(bytes_)));
  EXPECT_EQ(reports.back().sha256, Hex(Sha256Of(bytes_)));
  EXPECT_EQ(Read(dir_ + "/got/bb.mcap.checksum"), Base64(Sha256Of(bytes_)));
}

TEST_F(PutServer, AConnectionDroppedMidwayIsRetriedToCompletion) {
  Start("drop");
  const auto reports = Upload();
  ASSERT_GE(reports.size(), 4u);
  EXPECT_EQ(reports[1].state, State::kRetrying);
  EXPECT_EQ(reports[1].http_status, 0);
  ASSERT_EQ(reports.back().state, State::kOk) << reports.back().reason;
  EXPECT_EQ(reports.back().attempt, 2);
  EXPECT_EQ(Hex(Sha256Of(Read(dir_ + "/got/bb.mcap"))), Hex(Sha256Of(bytes_)));
  EXPECT_EQ(failures_, 0u);
}

TEST_F(PutServer, A500IsRetriedToCompletion) {
  Start("500");
  const auto reports = Upload();
  ASSERT_GE(reports.size(), 4u);
  EXPECT_EQ(reports[1].state, State::kRetrying);
  EXPECT_EQ(reports[1].http_status, 500);
  EXPECT_NE(reports[1].reason.find("try again"), std::string::npos);
  ASSERT_EQ(reports.back().state, State::kOk) << reports.back().reason;
  EXPECT_EQ(Hex(Sha256Of(Read(dir_ + "/got/bb.mcap"))), Hex(Sha256Of(bytes_)));
}

TEST_F(PutServer, A403IsReportedWithItsStatusAndCounted) {
  Start("403");
  const auto reports = Upload();
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().state, State::kError);
  EXPECT_EQ(reports.back().http_status, 403);
  EXPECT_EQ(reports.back().attempt, 1);
  EXPECT_EQ(failures_, 1u);
}

TEST_F(PutServer, PlainHttpIsRefusedByTheTransportUnlessAllowed) {
  Start("");
  const auto reports = Upload(false);
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().state, State::kError);
  EXPECT_EQ(reports.back().attempt, 1);  // not retried
  EXPECT_FALSE(std::ifstream(dir_ + "/got/bb.mcap").good());
}

TEST_F(PutServer, HttpsUploadsWhenTheServersCertificateIsTrusted) {
  Start("", true);
  const auto reports = Upload(false, pki_ + "/ca.pem");
  ASSERT_FALSE(reports.empty());
  ASSERT_EQ(reports.back().state, State::kOk) << reports.back().reason;
  EXPECT_EQ(Hex(Sha256Of(Read(dir_ + "/got/bb.mcap"))), Hex(Sha256Of(bytes_)));
}

TEST_F(PutServer, HttpsToAnUntrustedCertificateIsRefusedAndNotRetried) {
  Start("", true);
  for (const std::string& ca : {pki_ + "/other.pem", std::string()}) {  // another CA, the system's
    const auto reports = Upload(false, ca);
    ASSERT_FALSE(reports.empty());
    EXPECT_EQ(reports.back().state, State::kError) << ca;
    EXPECT_EQ(reports.back().attempt, 1) << reports.back().reason;
    EXPECT_NE(reports.back().reason.find("certificate"), std::string::npos)
        << reports.back().reason;
  }
  EXPECT_FALSE(std::ifstream(dir_ + "/got/bb.mcap").good());
}

// A GCS resumable session cut at 60 %: the uplink asks what arrived (308, Range) and sends only
// the rest. The server read every byte of the file exactly once, and stored the file.
TEST_F(PutServer, AResumableUploadCutAt60PercentGoesOnFromTheServersOffset) {
  Start("", false, {"--gcs", "--cut-at", "0.6"});
  const auto reports = Upload(true, "", 256 << 10);
  ASSERT_FALSE(reports.empty());
  const UploadReport& last = reports.back();
  ASSERT_EQ(last.state, State::kOk) << last.reason;
  EXPECT_EQ(last.attempt, 2);
  const std::uint64_t cut = static_cast<std::uint64_t>(bytes_.size() * 0.6);
  EXPECT_EQ(last.resumed_from, cut);
  EXPECT_EQ(Hex(Sha256Of(Read(dir_ + "/got/bb.mcap"))), Hex(Sha256Of(bytes_)));
  EXPECT_EQ(Read(dir_ + "/got/bb.mcap.received"), std::to_string(bytes_.size()))
      << "the server read some bytes twice (or missed some)";
  EXPECT_GE(last.sent_bytes, bytes_.size());
  const std::string json = ReportJson(last);
  EXPECT_NE(json.find("\"resumed_from\":" + std::to_string(cut)), std::string::npos) << json;
  std::printf("resumed at %llu of %zu bytes; %llu body bytes sent by curl (%.2f %% over), %.2f s\n",
              static_cast<unsigned long long>(last.resumed_from), bytes_.size(),
              static_cast<unsigned long long>(last.sent_bytes),
              100.0 * (static_cast<double>(last.sent_bytes) / bytes_.size() - 1.0), last.seconds);
}

// Without a cut, chunk after chunk (308 each) to the 200: the same bytes, nothing resumed.
TEST_F(PutServer, AResumableUploadGoesChunkByChunk) {
  Start("", false, {"--gcs"});
  const auto reports = Upload(true, "", 1 << 20);
  ASSERT_FALSE(reports.empty());
  ASSERT_EQ(reports.back().state, State::kOk) << reports.back().reason;
  EXPECT_EQ(reports.back().attempt, 1);
  EXPECT_EQ(reports.back().resumed_from, 0u);
  EXPECT_EQ(reports.back().sent_bytes, bytes_.size());
  EXPECT_EQ(Hex(Sha256Of(Read(dir_ + "/got/bb.mcap"))), Hex(Sha256Of(bytes_)));
}

}  // namespace
}  // namespace robot_edge::uplink
