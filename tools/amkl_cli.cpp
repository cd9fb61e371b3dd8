// The `amkl` command-line program: `amkl demo` (and, later, one subcommand per op).
#include <cstdio>
#include <string>

#include "amkl/amkl.h"

namespace amkl::tools {
int run_demo(int argc, char** argv);
}

namespace {
void usage() {
  std::printf(
      "usage: amkl <command> [options]\n\n"
      "commands:\n"
      "  demo [--cpu]   run attention on default problems (GPU if supported, else CPU) and\n"
      "                 print times, throughput and errors against the float64 oracle\n"
      "  info           print the version and the GPU this build can use\n");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  const std::string cmd = argv[1];
  try {
    if (cmd == "demo") return amkl::tools::run_demo(argc - 2, argv + 2);
    if (cmd == "info") {
      std::printf("amkl %s, CUDA backend: %s, GPU: %s\n", amkl::version(),
                  amkl::built_with_cuda() ? "yes" : "no", amkl::gpu_description(0).c_str());
      return 0;
    }
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      usage();
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "amkl: unknown command '%s'\n", cmd.c_str());
  usage();
  return 2;
}
