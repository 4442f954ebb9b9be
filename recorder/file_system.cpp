#include "recorder/file_system.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace robot_edge::recorder {
namespace {

constexpr mode_t kDirectoryMode = 0750;

bool Fail(std::string* error, const std::string& what, int err) {
  *error = what + ": " + std::generic_category().message(err);
  return false;
}

class PosixOutputFile final : public OutputFile {
 public:
  bool Create(const std::string& path) { return sink_.Create(path); }
  bool Write(std::span<const std::uint8_t> bytes) override { return sink_.Write(bytes); }
  bool Close() override { return sink_.Close(); }
  const std::string& error() const override { return sink_.error(); }

 private:
  FileSink sink_;
};

}  // namespace

bool PosixFileSystem::EnsureDirectory(const std::string& dir, std::string* error) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return Fail(error, "stat " + dir, errno);
    if (::mkdir(dir.c_str(), kDirectoryMode) != 0 && errno != EEXIST) {
      return Fail(error, "cannot create " + dir, errno);
    }
    // mkdir(2) applies the umask: set the mode the contract promises.
    if (::chmod(dir.c_str(), kDirectoryMode) != 0) return Fail(error, "chmod " + dir, errno);
    if (::stat(dir.c_str(), &st) != 0) return Fail(error, "stat " + dir, errno);
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = dir + " is not a directory";
    return false;
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return Fail(error, dir + " is not writable", errno);
  return true;
}

bool PosixFileSystem::FreeBytes(const std::string& dir, std::uint64_t* bytes, std::string* error) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return Fail(error, "statvfs " + dir, errno);
  *bytes = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  return true;
}

bool PosixFileSystem::List(const std::string& dir, std::vector<FileEntry>* out,
                           std::string* error) {
  out->clear();
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Fail(error, "opendir " + dir, errno);
  const int fd = ::dirfd(d);
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d);
    if (e == nullptr) {
      const int err = errno;
      ::closedir(d);
      return err == 0 || Fail(error, "readdir " + dir, err);
    }
    struct stat st {};
    // A file removed between readdir and fstatat is simply not listed.
    if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    out->push_back({e->d_name, static_cast<std::uint64_t>(st.st_size)});
  }
}

bool PosixFileSystem::Remove(const std::string& path, std::string* error) {
  return ::unlink(path.c_str()) == 0 || Fail(error, "unlink " + path, errno);
}

bool PosixFileSystem::Rename(const std::string& from, const std::string& to, std::string* error) {
  return ::rename(from.c_str(), to.c_str()) == 0 || Fail(error, "rename " + from, errno);
}

std::unique_ptr<OutputFile> PosixFileSystem::Create(const std::string& path, std::string* error) {
  auto file = std::make_unique<PosixOutputFile>();
  if (!file->Create(path)) {
    *error = file->error();
    return nullptr;
  }
  return file;
}

}  // namespace robot_edge::recorder
