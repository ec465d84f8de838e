// gemm_bench's second process for the ISA-capped oneDNN rows (see onednn_vnni_rerun.h).
#include "bench/onednn_vnni_rerun.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <regex>

extern char** environ;  // POSIX: the process environment

namespace qparity_bench {

namespace {

/// "out.json" -> "out.onednn_vnni.json"; "out" -> "out.onednn_vnni".
std::string child_report_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == 0) {
    return path + ".onednn_vnni";
  }
  return path.substr(0, dot) + ".onednn_vnni" + path.substr(dot);
}

}  // namespace

bool take_flag(int* argc, char** argv, const char* flag) {
  bool found = false;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strcmp(argv[i], flag) == 0) {
      found = true;
    } else {
      argv[out++] = argv[i];
    }
  }
  for (int i = out; i < *argc; ++i) argv[i] = nullptr;
  *argc = out;
  return found;
}

bool filter_selects_any(const std::string& filter, const std::vector<std::string>& names) {
  std::string spec = filter;
  if (spec.empty() || spec == "all") spec = ".";
  bool negate = false;
  if (spec[0] == '-') {
    negate = true;
    spec = spec.substr(1);
  }
  try {
    const std::regex re(spec, std::regex::extended);
    for (const std::string& name : names) {
      if (std::regex_search(name, re) != negate) return true;
    }
  } catch (const std::regex_error&) {
    return true;  // let Google Benchmark report the bad filter in the child
  }
  return false;
}

std::string benchmark_filter(const std::vector<std::string>& args) {
  const std::string prefix = "--benchmark_filter=";
  std::string filter;
  for (const std::string& a : args) {
    if (a.compare(0, prefix.size(), prefix) == 0) filter = a.substr(prefix.size());  // last wins
  }
  return filter;
}

int rerun_for_onednn_vnni(const std::vector<std::string>& args, std::string* error) {
  std::vector<std::string> child_args = {"gemm_bench"};
  const std::string out_prefix = "--benchmark_out=";
  for (const std::string& a : args) {
    if (a.compare(0, out_prefix.size(), out_prefix) == 0) {
      child_args.push_back(out_prefix + child_report_path(a.substr(out_prefix.size())));
    } else {
      child_args.push_back(a);
    }
  }
  child_args.push_back(kOnednnVnniChildFlag);
  std::vector<char*> argv;
  for (std::string& a : child_args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment, with BENCHMARK_OUT (Google Benchmark's environment form of the flag)
  // redirected like --benchmark_out; built before fork so the child only calls execve.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string key = "BENCHMARK_OUT=";
    env_strings.push_back(entry.compare(0, key.size(), key) == 0
                              ? key + child_report_path(entry.substr(key.size()))
                              : entry);
  }
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  std::cout.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork failed: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    execve("/proc/self/exe", argv.data(), envp.data());
    _exit(127);  // the parent reports exit status 127
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = std::string("waitpid failed: ") + std::strerror(errno);
      return -1;
    }
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    *error = "cannot execute /proc/self/exe";
    return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  *error = "the onednn_vnni process ended by signal " + std::to_string(WTERMSIG(status));
  return -1;
}

}  // namespace qparity_bench
