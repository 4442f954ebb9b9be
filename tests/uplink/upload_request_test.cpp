// The fleet's upload request (uplink/upload_request.hpp): every malformed or unsafe request is
// refused with a reason that names the field.
#include <gtest/gtest.h>

#include "uplink/upload_request.hpp"

namespace robot_edge::uplink {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

std::string Request(const std::string& file,
                    const std::string& url = "https://b.s3.amazonaws.com/k?X-Amz-Signature=ab",
                    const std::string& expires = "1700000600") {
  return R"({"type":"upload","id":"job-1","file":")" + file + R"(","url":")" + url +
         R"(","expires_at":)" + expires + "}";
}

std::string Refusal(const std::string& json, bool allow_http = false) {
  const ParsedUploadRequest p = ParseUploadRequest(json, kNow, allow_http);
  EXPECT_FALSE(p.request) << json;
  return p.error;
}

TEST(UploadRequest, AValidRequestIsRead) {
  const ParsedUploadRequest p = ParseUploadRequest(
      R"( { "type" : "upload", "id":"job-1", "file":"blackbox-1.mcap",
            "url":"https://h/k?a=b\/c", "expires_at": 1700000600, "checksum_header": false } )",
      kNow, false);
  ASSERT_TRUE(p.request) << p.error;
  EXPECT_EQ(p.request->id, "job-1");
  EXPECT_EQ(p.request->file, "blackbox-1.mcap");
  EXPECT_EQ(p.request->url, "https://h/k?a=b/c");
  EXPECT_EQ(p.request->expires_at_s, 1700000600);
  EXPECT_FALSE(p.request->checksum_header);
  EXPECT_TRUE(ParseUploadRequest(Request("latest"), kNow, false).request);
}

TEST(UploadRequest, MalformedJsonIsRefused) {
  for (const char* bad :
       {"", "[]", "{", R"({"type":"upload",})", R"({"type":"upload"} x)", R"({"type":{"a":1}})",
        R"({"type":["upload"]})", R"({"a":"b\q"})", R"({"a":"\u00e9"})", "{\"a\":\"line\nbreak\"}",
        R"({"type":"upload","type":"upload"})", R"({type:"upload"})"}) {
    EXPECT_NE(Refusal(bad).find("malformed JSON"), std::string::npos) << bad;
  }
}

TEST(UploadRequest, MissingOrWrongFieldsAreNamed) {
  EXPECT_NE(Refusal(R"({"id":"j","file":"f","url":"https://h/","expires_at":1700000600})")
                .find("\"type\""),
            std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"upload","file":"f","url":"https://h/","expires_at":1700000600})")
                .find("\"id\""),
            std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"upload","id":"j","url":"https://h/","expires_at":1700000600})")
                .find("\"file\""),
            std::string::npos);
  EXPECT_NE(
      Refusal(R"({"type":"upload","id":"j","file":"f","expires_at":1700000600})").find("\"url\""),
      std::string::npos);
  EXPECT_NE(
      Refusal(R"({"type":"upload","id":"j","file":"f","url":"https://h/"})").find("\"expires_at\""),
      std::string::npos);
  EXPECT_NE(Refusal(Request("f", "https://h/", "\"soon\"")).find("\"expires_at\""),
            std::string::npos);
  EXPECT_NE(Refusal(Request("f", "https://h/", "17000006.5")).find("\"expires_at\""),
            std::string::npos);
  EXPECT_NE(Refusal(R"({"type":"upload","id":"j","file":"f","url":"https://h/",)"
                    R"("expires_at":1700000600,"checksum_header":"yes"})")
                .find("checksum_header"),
            std::string::npos);
}

// "protocol": "put" (the default) or "gcs-resumable" (a resumable session URI); nothing else.
TEST(UploadRequest, TheProtocolIsPutOrGcsResumable) {
  const std::string head = R"({"type":"upload","id":"j","file":"f","url":"https://h/",)"
                           R"("expires_at":1700000600)";
  EXPECT_FALSE(ParseUploadRequest(head + "}", kNow, false).request->resumable);
  EXPECT_FALSE(ParseUploadRequest(head + R"(,"protocol":"put"})", kNow, false).request->resumable);
  EXPECT_TRUE(
      ParseUploadRequest(head + R"(,"protocol":"gcs-resumable"})", kNow, false).request->resumable);
  EXPECT_NE(Refusal(head + R"(,"protocol":"s3-multipart"})").find("\"protocol\" must be"),
            std::string::npos);
}

TEST(UploadRequest, ExpiredIsRefused) {
  EXPECT_NE(Refusal(Request("f", "https://h/", "1700000000")).find("expired"), std::string::npos);
  EXPECT_NE(Refusal(Request("f", "https://h/", "5")).find("expired"), std::string::npos);
}

TEST(UploadRequest, PathTraversalIsRefused) {
  for (const char* bad : {"../etc/passwd", "..", ".", "a/b", "/etc/shadow", ".hidden", "x/../y"}) {
    EXPECT_NE(Refusal(Request(bad)).find("\"file\""), std::string::npos) << bad;
  }
  EXPECT_FALSE(ValidFileName(std::string("a\0b", 3)));
  EXPECT_FALSE(ValidFileName(std::string(256, 'a')));
  EXPECT_TRUE(ValidFileName("blackbox-20261127T120000Z-fault.mcap"));
}

TEST(UploadRequest, PlainHttpOnlyToLoopbackAndOnlyWhenAllowed) {
  EXPECT_NE(Refusal(Request("f", "http://127.0.0.1:8000/f")).find("plain http"), std::string::npos);
  EXPECT_TRUE(ParseUploadRequest(Request("f", "http://127.0.0.1:8000/f"), kNow, true).request);
  EXPECT_TRUE(ParseUploadRequest(Request("f", "http://[::1]:8000/f"), kNow, true).request);
  for (const char* url : {"http://example.com/f", "http://127.0.0.1.evil.com/f",
                          "http://localhost:80/f", "http://10.0.0.1/f"}) {
    EXPECT_NE(Refusal(Request("f", url), true).find("127.0.0.1"), std::string::npos) << url;
  }
  EXPECT_NE(Refusal(Request("f", "http://127.0.0.1@evil.com/f"), true).find("user"),
            std::string::npos);
  EXPECT_NE(Refusal(Request("f", "https://u:p@h/f")).find("user"), std::string::npos);
  EXPECT_NE(Refusal(Request("f", "ftp://h/f"), true).find("https://"), std::string::npos);
  EXPECT_NE(Refusal(Request("f", "file:///etc/passwd"), true).find("https://"), std::string::npos);
  EXPECT_NE(Refusal(Request("f", "https:///f")).find("no host"), std::string::npos);
  EXPECT_NE(Refusal(Request("f", "https://h/a b")).find("spaces"), std::string::npos);
}

}  // namespace
}  // namespace robot_edge::uplink
