// HTTP GETs: documents, the dashboard's files, and the paths that must not reach a file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "live/http_routes.hpp"

namespace robot_edge::live {
namespace {

TEST(WebRootRelative, MapsUrlPathsToFiles) {
  EXPECT_EQ(WebRootRelative("/"), "index.html");
  EXPECT_EQ(WebRootRelative("/app.js"), "app.js");
  EXPECT_EQ(WebRootRelative("/js/"), "js/index.html");
  EXPECT_EQ(WebRootRelative("/js/app.js"), "js/app.js");
}

TEST(WebRootRelative, RefusesEscapesAndHiddenFiles) {
  for (const char* path : {"", "app.js", "/../etc/passwd", "/js/../../x", "/.git/config", "/a//b",
                           "/a\\b", "/..", "/js/.hidden"}) {
    EXPECT_EQ(WebRootRelative(path), std::nullopt) << path;
  }
  EXPECT_EQ(WebRootRelative(std::string("/a\0b", 4)), std::nullopt);
}

TEST(ContentTypeOf, ByExtension) {
  EXPECT_EQ(ContentTypeOf("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("style.css"), "text/css; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("robot.json"), "application/json");
  EXPECT_EQ(ContentTypeOf("blob"), "application/octet-stream");
}

class HttpRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("live_routes_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root_ / "js");
    std::ofstream(root_ / "index.html") << "<html></html>";
    std::ofstream(root_ / "js" / "app.js") << "export {};";
    std::ofstream(root_.parent_path() / "secret.txt") << "secret";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

TEST_F(HttpRoutesTest, ServesFilesAndDocuments) {
  HttpRoutes routes(root_.string());
  EXPECT_EQ(routes.Get("/").body, "<html></html>");
  EXPECT_EQ(routes.Get("/").content_type, "text/html; charset=utf-8");
  EXPECT_EQ(routes.Get("/js/app.js").status, 200);
  EXPECT_EQ(routes.Get("/robot.json").status, 404);
  routes.SetDocument("/robot.json", "application/json", "{\"a\":1}");
  EXPECT_EQ(routes.Get("/robot.json").body, "{\"a\":1}");
  routes.SetDocument("/robot.json", "application/json", "{\"a\":2}");  // replaced
  EXPECT_EQ(routes.Get("/robot.json").body, "{\"a\":2}");
  EXPECT_EQ(routes.Get("/robot.json").content_type, "application/json");
}

TEST_F(HttpRoutesTest, NothingOutsideTheWebRoot) {
  HttpRoutes routes(root_.string());
  EXPECT_EQ(routes.Get("/../secret.txt").status, 404);
  EXPECT_EQ(routes.Get("/missing.js").status, 404);
  HttpRoutes no_files("");
  EXPECT_EQ(no_files.Get("/").status, 404);
}

}  // namespace
}  // namespace robot_edge::live
