// What the CLI system tests share: each test gets a fresh temporary directory and runs the
// built xpusim there (XPUSIM_CONFIG_DIR pointing at the repository's configs/), capturing the
// exit code, stdout and stderr.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace xpusim::test {

namespace fs = std::filesystem;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A stats file without its "host" object (command line, host time): what a determinism check
// compares. Also checks the file parses.
inline std::string without_host(const std::string& stats) {
  nlohmann::json j = nlohmann::json::parse(stats);
  EXPECT_TRUE(j.contains("host") && j.contains("header")) << stats.substr(0, 200);
  j.erase("host");
  return j.dump(1);
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("xpusim_{}_{}_{}",
                       ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name(), ::getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `xpusim ARGS` (shell syntax) in the test's directory.
  CliRun run(const std::string& args) const {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string cmd =
        fmt::format("cd '{}' && XPUSIM_CONFIG_DIR='{}' '{}' {} >'{}' 2>'{}'", dir_.string(),
                    XPUSIM_CONFIG_DIR, XPUSIM_BIN, args, out.string(), err.string());
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  // A file the command wrote in the test's directory.
  std::string file(const std::string& name) const { return slurp(dir_ / name); }

  fs::path dir_;
};

}  // namespace xpusim::test
