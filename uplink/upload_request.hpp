// A fleet's upload request on `<prefix>/<robot>/blackbox` (docs/fleet-uploads.md), parsed and
// checked (pure: no I/O, no clock; `now_s` is the caller's wall clock).
//   {"type":"upload", "id":"job-7", "file":"<name in the recordings directory>" | "latest",
//    "url":"https://bucket.s3.../key?X-Amz-...", "expires_at":1700000000,
//    "checksum_header":true, "protocol":"put" | "gcs-resumable"}
// "latest" is the newest black box. expires_at: Unix seconds, the URL's own expiry (the uplink
// gives up then). checksum_header (default true): send x-amz-checksum-sha256. protocol (default
// "put"): one presigned PUT; "gcs-resumable": url is a Google Cloud Storage resumable session
// URI, sent in chunks with Content-Range and resumed from the offset the server reports
// (upload.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace robot_edge::uplink {

inline constexpr const char* kLatestBlackBox = "latest";

struct UploadRequest {
  std::string id;                 // the fleet's, echoed in every report (1..64 printable chars)
  std::string file;               // a file name (ValidFileName) or kLatestBlackBox
  std::string url;                // presigned PUT URL (CheckUploadUrl)
  std::int64_t expires_at_s = 0;  // Unix seconds
  bool checksum_header = true;
  bool resumable = false;  // "protocol":"gcs-resumable"
};

// A flat JSON object whose values are strings, numbers (kept as their text) or booleans
// ("true"/"false"). nullopt with `error` set on anything else: nesting, arrays, duplicate keys,
// bad escapes, trailing bytes.
std::optional<std::map<std::string, std::string>> ParseFlatJson(std::string_view text,
                                                                std::string* error);

// One file name inside the recordings directory: 1..255 bytes, no '/', no NUL, not "." or "..",
// not starting with '.' (no hidden files, no traversal).
bool ValidFileName(std::string_view name);

// "" when `url` may be PUT to: https://host/..., or, only with `allow_plain_http_loopback`,
// http://127.0.0.1[:port]/... or http://[::1][:port]/...; otherwise why not. Userinfo ('@'),
// control characters and spaces are refused.
std::string CheckUploadUrl(std::string_view url, bool allow_plain_http_loopback);

struct ParsedUploadRequest {
  std::optional<UploadRequest> request;  // set when valid
  std::string id;     // the request's id as far as it could be read (for the refusal report)
  std::string error;  // why it was refused
};

ParsedUploadRequest ParseUploadRequest(std::string_view json, std::int64_t now_s,
                                       bool allow_plain_http_loopback);

}  // namespace robot_edge::uplink
