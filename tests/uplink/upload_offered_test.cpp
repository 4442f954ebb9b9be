// broker.uplink, issue 38 M3 (exfiltration): the uplink uploads only a file robot-edged offers
// (its OP_BLACKBOX_LIST answer), opened with O_NOFOLLOW through the directory's fd. Against the
// real robot-edged, mosquitto (mutual TLS), robot-edge-uplink and put_server.py: a token file
// placed in the recordings directory and asked for by name is refused, and so is a symlink named
// like a black box (pointing at the token); nothing of either reaches the server. A real black
// box still uploads (the positive control), and so does a closed recording, not an open one.
// About 15 s.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fleet_rig.hpp"
#include "uplink/sha256.hpp"

namespace robot_edge::test {
namespace {

TEST(BrokerUplink, OnlyAFileRobotEdgedOffersIsUploaded) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-offered");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  std::filesystem::create_directory(dir + "/got");
  const int port = FreePort(), http_port = FreePort();
  Child server({"/usr/bin/python3", ROBOT_EDGE_PUT_SERVER, dir + "/got", "--port",
                std::to_string(http_port)},
               dir + "/put-server");
  RobotOptions o;
  o.config_edits = {{"black_box_seconds: 30", "black_box_seconds: 2 "},
                    {"black_box_after_seconds: 5", "black_box_after_seconds: 1"}};
  Robot robot(o);
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Fleet fleet(pki, port);
  Uplink uplink(dir, pki, port, robot.api_socket(),
                "upload:\n  announce: off\n  allow_plain_http_loopback: true\n");
  uplink.Start();
  auto status = [&](const std::string& id, const std::string& state) {
    for (const Received& m : fleet.Messages()) {
      if (m.topic == "robot-edge/r1/status" &&
          m.payload.find("\"id\":\"" + id + "\"") != std::string::npos &&
          m.payload.find("\"state\":\"" + state + "\"") != std::string::npos) {
        return m.payload;
      }
    }
    return std::string();
  };
  auto ask = [&](const std::string& id, const std::string& file) {
    fleet.Publish("robot-edge/r1/blackbox",
                  R"({"type":"upload","id":")" + id + R"(","file":")" + file +
                      R"(","url":"http://127.0.0.1:)" + std::to_string(http_port) + "/b/" + id +
                      R"(?sig=1","expires_at":)" +
                      std::to_string(client::WallClockMicros() / 1'000'000 + 600) + "}",
                  60);
  };
  // Requests on `blackbox` are not retained: ask once the uplink is subscribed (online).
  ASSERT_TRUE(Eventually(
      [&] {
        for (const Received& m : fleet.Messages()) {
          if (m.topic == "robot-edge/r1/status" &&
              m.payload.find("\"online\"") != std::string::npos) {
            return true;
          }
        }
        return false;
      },
      20s))
      << uplink.Log();
  ASSERT_TRUE(Eventually([&] { return PortOpen(http_port); }, 10s)) << server.Stderr();

  // A real black box, closed.
  client::Client c = robot.Connect("cloud");
  edge::RecorderRequest save;
  save.set_request_id(1);
  save.set_op(edge::RecorderRequest::OP_BLACKBOX_SAVE);
  save.set_reason("fleet-test");
  const auto saving = c.Record(save, 5s);
  ASSERT_TRUE(saving && saving->ok()) << (saving ? saving->error() : "no answer");
  edge::RecorderRequest ask_status;
  ask_status.set_request_id(2);
  ask_status.set_op(edge::RecorderRequest::OP_STATUS);
  ASSERT_TRUE(Eventually(
      [&] {
        const auto s = c.Record(ask_status, 5s);
        return s && !s->status().black_box_writing() && s->status().black_box_written() == 1;
      },
      20s));
  const std::string recordings = robot.dir() + "/recordings";
  std::string box;
  for (const auto& e : std::filesystem::directory_iterator(recordings)) {
    box = e.path().filename().string();
  }
  ASSERT_NE(box.find("fleet-test"), std::string::npos) << box;
  // What a hostile fleet config's recorder.directory would hold: a secret, and a symlink to it
  // named like a black box (robot-edged lists regular files only).
  const std::string secret = "fleet-token-0123456789abcdef\n";
  std::ofstream(recordings + "/token") << secret;
  std::string link = box;
  link.replace(link.find("fleet-test"), 10, "fleet-evil");
  ASSERT_EQ(::symlink((recordings + "/token").c_str(), (recordings + "/" + link).c_str()), 0);

  ask("token", "token");
  ask("link", link);
  ask("box", box);
  ASSERT_TRUE(Eventually([&] { return !status("box", "ok").empty(); }, 20s)) << uplink.Log();
  ASSERT_TRUE(Eventually([&] { return !status("token", "error").empty(); }, 10s)) << uplink.Log();
  ASSERT_TRUE(Eventually([&] { return !status("link", "error").empty(); }, 10s)) << uplink.Log();
  EXPECT_NE(status("token", "error").find("does not offer"), std::string::npos)
      << status("token", "error");
  EXPECT_NE(status("link", "error").find("does not offer"), std::string::npos)
      << status("link", "error");
  EXPECT_FALSE(std::filesystem::exists(dir + "/got/token")) << "the token was PUT";
  EXPECT_FALSE(std::filesystem::exists(dir + "/got/link")) << "the symlink was followed";
  EXPECT_EQ(ReadFile(dir + "/got/box"), ReadFile(recordings + "/" + box));
  std::printf("refused: %s\nrefused: %s\nuploaded: %s\n", status("token", "error").c_str(),
              status("link", "error").c_str(), status("box", "ok").c_str());

  // A continuous recording robot-edged lists (recording_files): refused while open, uploaded
  // once closed (issue 38 item 4: robot-edged names the files it offers).
  // (stopping a recording is for api.maintenance_controllers)
  client::Client maintainer = robot.Connect("maintainer");
  edge::RecorderRequest start;
  start.set_request_id(3);
  start.set_op(edge::RecorderRequest::OP_START);
  const auto started = maintainer.Record(start, 5s);
  ASSERT_TRUE(started && started->ok() && started->status().recording())
      << (started ? started->error() : "no answer");
  const std::string recording = std::filesystem::path(started->status().file()).filename();
  ask("open", recording);
  ASSERT_TRUE(Eventually([&] { return !status("open", "error").empty(); }, 20s)) << uplink.Log();
  EXPECT_NE(status("open", "error").find("recording robot-edged is writing"), std::string::npos)
      << status("open", "error");
  edge::RecorderRequest stop;
  stop.set_request_id(4);
  stop.set_op(edge::RecorderRequest::OP_STOP);
  const auto stopped = maintainer.Record(stop, 5s);
  ASSERT_TRUE(stopped && stopped->ok()) << (stopped ? stopped->error() : "no answer");
  ask("recording", recording);
  ASSERT_TRUE(Eventually([&] { return !status("recording", "ok").empty(); }, 20s)) << uplink.Log();
  EXPECT_EQ(ReadFile(dir + "/got/recording"), ReadFile(recordings + "/" + recording));
  std::printf("refused: %s\nuploaded: %s\n", status("open", "error").c_str(),
              status("recording", "ok").c_str());
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

}  // namespace
}  // namespace robot_edge::test
