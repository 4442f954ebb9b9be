// An in-memory FileSystem for the recorder tests: files are byte vectors shared with the open
// OutputFile (so a test sees, mid-recording, what a killed process would leave), the disk has a
// size, and each call can be made to fail with the text its POSIX counterpart would give.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "recorder/file_system.hpp"

namespace robot_edge::recorder::test {

class FakeFileSystem final : public FileSystem {
 public:
  using Bytes = std::vector<std::uint8_t>;

  std::map<std::string, std::shared_ptr<Bytes>> files;  // by path
  std::set<std::string> directories;                    // that exist
  // FreeBytes: disk_bytes less the files' bytes.
  std::uint64_t disk_bytes = 1ull << 40;
  // A write that would take the files' bytes past this fails: "No space left on device".
  std::uint64_t write_limit = UINT64_MAX;
  // EnsureDirectory fails with "DIR is not writable: <this>".
  std::optional<std::string> not_writable;
  bool fail_close = false;   // OutputFile::Close fails
  bool fail_rename = false;  // Rename fails
  int free_calls = 0;

  std::uint64_t UsedBytes() const {
    std::uint64_t used = 0;
    for (const auto& [path, bytes] : files) used += bytes->size();
    return used;
  }
  // The names of the files directly in `dir`, sorted.
  std::vector<std::string> Names(const std::string& dir) const {
    std::vector<std::string> out;
    for (const auto& [path, bytes] : files) {
      if (InDirectory(path, dir)) out.push_back(path.substr(dir.size() + 1));
    }
    return out;
  }

  bool EnsureDirectory(const std::string& dir, std::string* error) override {
    directories.insert(dir);  // parents are not modelled
    if (not_writable) {
      *error = dir + " is not writable: " + *not_writable;
      return false;
    }
    return true;
  }
  bool FreeBytes(const std::string& dir, std::uint64_t* bytes, std::string* error) override {
    ++free_calls;
    if (!directories.count(dir)) return Missing("statvfs " + dir, error);
    const std::uint64_t used = UsedBytes();
    *bytes = disk_bytes > used ? disk_bytes - used : 0;
    return true;
  }
  bool List(const std::string& dir, std::vector<FileEntry>* out, std::string* error) override {
    if (!directories.count(dir)) return Missing("opendir " + dir, error);
    out->clear();
    for (const auto& [path, bytes] : files) {
      if (InDirectory(path, dir)) out->push_back({path.substr(dir.size() + 1), bytes->size()});
    }
    return true;
  }
  bool Remove(const std::string& path, std::string* error) override {
    if (files.erase(path) == 0) return Missing("unlink " + path, error);
    return true;
  }
  bool Rename(const std::string& from, const std::string& to, std::string* error) override {
    const auto it = files.find(from);
    if (it == files.end()) return Missing("rename " + from, error);
    if (fail_rename) {
      *error = "rename " + from + ": Input/output error";
      return false;
    }
    std::shared_ptr<Bytes> bytes = it->second;
    files.erase(it);
    files[to] = std::move(bytes);
    return true;
  }
  std::unique_ptr<OutputFile> Create(const std::string& path, std::string* error) override {
    if (!directories.count(path.substr(0, path.rfind('/')))) {
      Missing("open " + path, error);
      return nullptr;
    }
    if (files.count(path) != 0) {  // as O_EXCL: a new file only
      *error =
          "open " + path + ": File exists (refused: recordings are only written to a new file)";
      return nullptr;
    }
    auto bytes = std::make_shared<Bytes>();
    files[path] = bytes;
    return std::make_unique<File>(*this, path, std::move(bytes));
  }

 private:
  class File final : public OutputFile {
   public:
    File(FakeFileSystem& fs, std::string path, std::shared_ptr<Bytes> bytes)
        : fs_(fs), path_(std::move(path)), bytes_(std::move(bytes)) {}
    bool Write(std::span<const std::uint8_t> data) override {
      if (fs_.UsedBytes() + data.size() > fs_.write_limit) {
        error_ = "write " + path_ + ": No space left on device";
        return false;
      }
      bytes_->insert(bytes_->end(), data.begin(), data.end());
      return true;
    }
    bool Close() override {
      if (!fs_.fail_close) return true;
      error_ = "close " + path_ + ": Input/output error";
      return false;
    }
    const std::string& error() const override { return error_; }

   private:
    FakeFileSystem& fs_;
    std::string path_;
    std::shared_ptr<Bytes> bytes_;
    std::string error_;
  };

  static bool InDirectory(const std::string& path, const std::string& dir) {
    return path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 &&
           path[dir.size()] == '/' && path.find('/', dir.size() + 1) == std::string::npos;
  }
  static bool Missing(const std::string& what, std::string* error) {
    *error = what + ": No such file or directory";
    return false;
  }
};

}  // namespace robot_edge::recorder::test
