// CurlTransport (upload.hpp): one HTTP PUT with libcurl's easy interface.
#include <curl/curl.h>
#include <strings.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "uplink/upload.hpp"

namespace robot_edge::uplink {

namespace {

struct Body {  // what the PUT reads: the file from offset 0
  int fd;
  std::uint64_t bytes;
  std::uint64_t offset = 0;
};

std::size_t ReadBody(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::uint64_t left = body->bytes - body->offset;
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size * count, left));
  if (want == 0) return 0;
  const ssize_t got = ::pread(body->fd, buffer, want, static_cast<off_t>(body->offset));
  if (got <= 0) return CURL_READFUNC_ABORT;
  body->offset += static_cast<std::uint64_t>(got);
  return static_cast<std::size_t>(got);
}

std::size_t KeepAnswer(char* data, std::size_t size, std::size_t count, void* user) {
  auto* answer = static_cast<std::string*>(user);
  if (answer->size() < 512) answer->append(data, std::min<std::size_t>(size * count, 512));
  return size * count;
}

// The answer's "Range:" header line (a 308's bytes=0-N), case-insensitive name.
std::size_t KeepRange(char* data, std::size_t size, std::size_t count, void* user) {
  const std::string line(data, size * count);
  if (line.size() > 6 && strncasecmp(line.c_str(), "range:", 6) == 0) {
    *static_cast<std::string*>(user) = line.substr(6);
  }
  return size * count;
}

int Progress(void* abort, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(abort)->load() ? 1 : 0;
}

class CurlTransport : public PutTransport {
 public:
  CurlTransport(std::string ca_file, bool allow_plain_http, const std::atomic<bool>* abort)
      : ca_file_(std::move(ca_file)), allow_plain_http_(allow_plain_http), abort_(abort) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
  }

  PutResult Put(const std::string& url, int fd, std::uint64_t bytes,
                const std::string& checksum_b64) override {
    std::vector<std::string> headers;
    if (!checksum_b64.empty()) headers.push_back("x-amz-checksum-sha256: " + checksum_b64);
    return Perform(url, fd, 0, bytes, headers, nullptr).put;
  }

  ChunkResult PutChunk(const std::string& url, int fd, std::uint64_t first, std::uint64_t length,
                       std::uint64_t total) override {
    const std::string range = length == 0 ? "*/" + std::to_string(total)
                                          : std::to_string(first) + "-" +
                                                std::to_string(first + length - 1) + "/" +
                                                std::to_string(total);
    std::string range_header;  // the answer's Range: bytes=0-N
    ChunkResult out =
        Perform(url, fd, first, length, {"Content-Range: bytes " + range}, &range_header);
    if (out.put.http_status == 308) {
      out.put.reason = "308 Resume Incomplete";
      out.incomplete = true;
      const std::size_t dash = range_header.find("bytes=0-");
      if (dash != std::string::npos) out.persisted = std::stoull(range_header.substr(dash + 8)) + 1;
    }
    return out;
  }

  // One PUT of bytes [first, first + length) of `fd`; `range` (not null): the answer's Range.
  ChunkResult Perform(const std::string& url, int fd, std::uint64_t first, std::uint64_t length,
                      const std::vector<std::string>& extra_headers, std::string* range) {
    ChunkResult out;
    CURL* curl = curl_easy_init();
    if (curl == nullptr) {
      out.put = {false, 0, "libcurl could not start", true};
      return out;
    }
    Body body{fd, first + length, first};
    std::string answer;
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/octet-stream");
    for (const std::string& h : extra_headers) headers = curl_slist_append(headers, h.c_str());
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, allow_plain_http_ ? "http,https" : "https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(length));
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, &body);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, KeepAnswer);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
    if (range != nullptr) {
      curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, KeepRange);
      curl_easy_setopt(curl, CURLOPT_HEADERDATA, range);
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!ca_file_.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file_.c_str());
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, Progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, abort_);
    const CURLcode code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_off_t sent = 0;
    curl_easy_getinfo(curl, CURLINFO_SIZE_UPLOAD_T, &sent);
    out.sent = static_cast<std::uint64_t>(sent);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (code != CURLE_OK) {
      // TLS and protocol refusals will not heal by themselves; the network may.
      const bool permanent = code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT ||
                             code == CURLE_PEER_FAILED_VERIFICATION ||
                             code == CURLE_SSL_CACERT_BADFILE || code == CURLE_ABORTED_BY_CALLBACK;
      // A 100 Continue is no answer: report the status only when a final one came.
      out.put = {false, status >= 200 ? status : 0, curl_easy_strerror(code), !permanent};
      return out;
    }
    if (status >= 200 && status < 300) {
      out.put = {true, status, "", false};
      return out;
    }
    for (char& c : answer) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    const bool retryable = status == 408 || status == 429 || status >= 500;
    out.put = {false, status, "HTTP " + std::to_string(status) + ": " + answer, retryable};
    return out;
  }

 private:
  std::string ca_file_;
  bool allow_plain_http_;
  const std::atomic<bool>* abort_;
};

}  // namespace

std::unique_ptr<PutTransport> MakeCurlTransport(const std::string& ca_file, bool allow_plain_http,
                                                const std::atomic<bool>* abort) {
  return std::make_unique<CurlTransport>(ca_file, allow_plain_http, abort);
}

}  // namespace robot_edge::uplink
