// The line a failure reason quotes: real stderr tails of Python scripts,
// torchrun and tqdm.
#include "trial_runner/output/failure_line.h"

#include <fstream>
#include <sstream>
#include <string>

#include "tests/catch.h"

namespace tuner::runner {
namespace {

TEST_CASE("a traceback's exception line, not its frames", "[runner][failure]") {
  CHECK(LastMeaningfulLine("Traceback (most recent call last):\n"
                           "  File \"/work/train.py\", line 40, in <module>\n"
                           "    main()\n"
                           "  File \"/work/train.py\", line 31, in main\n"
                           "    server.bind((\"127.0.0.1\", port))\n"
                           "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
                           "OSError: [Errno 98] Address already in use\n"
                           "\n") ==
        "OSError: [Errno 98] Address already in use");
  // a script that does not compile has no Traceback header
  CHECK(LastMeaningfulLine("  File \"/work/train.py\", line 3\n"
                           "    def f(:\n"
                           "          ^\n"
                           "SyntaxError: invalid syntax\n") ==
        "SyntaxError: invalid syntax");
  // chained exceptions: the last one
  CHECK(LastMeaningfulLine(
            "Traceback (most recent call last):\n"
            "  File \"a.py\", line 1, in <module>\n"
            "    x()\n"
            "KeyError: 'lr'\n"
            "\n"
            "During handling of the above exception, another exception "
            "occurred:\n"
            "\n"
            "Traceback (most recent call last):\n"
            "  File \"a.py\", line 3, in <module>\n"
            "    raise ValueError('no lr')\n"
            "ValueError: no lr\n") == "ValueError: no lr");
  // a message that is not Python's: kept as it is, indented or not
  CHECK(LastMeaningfulLine("terminate called after throwing an instance of "
                           "'std::bad_alloc'\n  what():  std::bad_alloc\n") ==
        "what():  std::bad_alloc");
  CHECK(LastMeaningfulLine("Killed\n") == "Killed");
  CHECK(LastMeaningfulLine("").empty());
  CHECK(LastMeaningfulLine("\n\n   \n\t\n").empty());
}

TEST_CASE("progress bars and warnings are not the reason",
          "[runner][failure]") {
  CHECK(LastMeaningfulLine(
            "RuntimeError: Expected all tensors to be on the same device\n"
            "Epoch 1:  45%|####5     | 9/20 [00:01<00:01,  8.12it/s]\n"
            "\r 50%|#####     | 10/20 [00:01<00:01,  8.20it/s]\r 55%|#####5   "
            " | 11/20 [00:01<00:01,  8.21it/s]\n"
            "100it [00:12,  8.00it/s]\n") ==
        "RuntimeError: Expected all tensors to be on the same device");
  CHECK(LastMeaningfulLine(
            "ZeroDivisionError: division by zero\n"
            "/usr/lib/python3/dist-packages/torch/nn/modules/loss.py:536: "
            "UserWarning: Using a target size that is different to the input "
            "size.\n"
            "  return F.mse_loss(input, target, reduction=self.reduction)\n") ==
        "ZeroDivisionError: division by zero");
}

// What Debian's torch 1.13 torchrun prints when a rank fails.
const char* kTorchrunFailure =
    "WARNING:torch.distributed.run:\n"
    "*****************************************\n"
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 "
    "in default, to avoid your system being overloaded, please further tune "
    "the variable for optimal performance in your application as needed. \n"
    "*****************************************\n"
    "[default1]:Traceback (most recent call last):\n"
    "[default1]:  File \"/work/examples/ddp_mlp.py\", line 20, in <module>\n"
    "[default1]:    import missing_module\n"
    "[default1]:ModuleNotFoundError: No module named 'missing_module'\n"
    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process "
    "4242 closing signal SIGTERM\n"
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: "
    "1) local_rank: 1 (pid: 4243) of binary: /usr/bin/python3\n"
    "Traceback (most recent call last):\n"
    "  File \"/usr/bin/torchrun\", line 33, in <module>\n"
    "    sys.exit(load_entry_point('torch==1.13.1', 'console_scripts', "
    "'torchrun')())\n"
    "  File \"/usr/lib/python3/dist-packages/torch/distributed/run.py\", line "
    "762, in main\n"
    "    run(args)\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    "============================================================\n"
    "examples/ddp_mlp.py FAILED\n"
    "------------------------------------------------------------\n"
    "Failures:\n"
    "  <NO_OTHER_FAILURES>\n"
    "------------------------------------------------------------\n"
    "Root Cause (first observed failure):\n"
    "[0]:\n"
    "  time      : 2026-11-23_03:40:00\n"
    "  host      : box\n"
    "  rank      : 1 (local_rank: 1)\n"
    "  exitcode  : 1 (pid: 4243)\n"
    "  error_file: <N/A>\n"
    "  traceback : To enable traceback see: "
    "https://pytorch.org/docs/stable/elastic/errors.html\n"
    "============================================================\n";

TEST_CASE("torchrun's noise and summary are skipped, the rank's error kept",
          "[runner][failure]") {
  CHECK(LastMeaningfulLine(kTorchrunFailure) ==
        "ModuleNotFoundError: No module named 'missing_module'");
  // torch >= 2.2: `[rank0]: ` and glog-style log lines naming the module
  CHECK(LastMeaningfulLine(
            "[rank0]: Traceback (most recent call last):\n"
            "[rank0]:   File \"/w/t.py\", line 9, in <module>\n"
            "[rank0]:     dist.init_process_group(\"gloo\")\n"
            "[rank0]: torch.distributed.DistNetworkError: The server socket "
            "has failed to listen on any local network address. port: 29500, "
            "useIpv6: 0, code: -98, name: EADDRINUSE, message: address "
            "already in use\n"
            "E1123 03:40:00.123000 4242 torch/distributed/elastic/"
            "multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 "
            "(pid: 4243) of binary: /usr/bin/python3\n")
            .starts_with("torch.distributed.DistNetworkError: The server "
                         "socket has failed to listen"));
}

TEST_CASE("the line is printable, valid UTF-8 and bounded",
          "[runner][failure]") {
  // tabs made spaces; every escape shown whole, as the CLI shows one
  CHECK(LastMeaningfulLine("\x1b[31mValueError:\x1b[0m\tbad lr\n") ==
        "\\x1b[31mValueError:\\x1b[0m bad lr");
  CHECK(LastMeaningfulLine("bad \x1b[31mthing\x1b]0;TITLE\a \xc2\x9b"
                           "2J end\n") ==
        "bad \\x1b[31mthing\\x1b]0;TITLE\\x07 \\u009b2J end");
  CHECK(PrintableLine("a\x7f\x01"
                      "b\xe2\x80\xae"
                      "c",
                      100) == "a\\x7f\\x01b\\u202ec");
  // A cut never splits an escape as shown: "\x1b" is whole or absent.
  for (size_t max : {8u, 9u, 10u, 11u, 12u}) {
    std::string cut = PrintableLine("ab\x1b\x1b\x1b\x1b\x1b", max);
    INFO(max);
    CHECK(cut.size() <= max);
    CHECK(cut.ends_with("\xe2\x80\xa6"));
    CHECK((cut.size() - 3 - 2) % 4 == 0);
  }
  // invalid UTF-8 (Latin-1 bytes) becomes U+FFFD
  CHECK(PrintableLine("caf\xe9 ok", 100) == "caf\xef\xbf\xbd ok");
  CHECK(PrintableLine("\xc3", 100) == "\xef\xbf\xbd");
  CHECK(PrintableLine("\xed\xa0\x80", 100) ==
        "\xef\xbf\xbd");  // a surrogate: one ill-formed sequence
  // cut on a character boundary: "é" is 2 bytes, "…" 3
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "\xc3\xa9";
  for (size_t max : {7u, 8u, 9u, 240u}) {
    std::string cut = PrintableLine(accents, max);
    INFO(max);
    CHECK(cut.size() <= max);
    CHECK(cut.ends_with("\xe2\x80\xa6"));
    CHECK((cut.size() - 3) % 2 == 0);  // whole characters before "…"
  }
  std::string long_error = "RuntimeError: " + std::string(1000, 'x');
  std::string line = LastMeaningfulLine(long_error);
  CHECK(line.size() <= kMaxFailureLine);
  CHECK(line.starts_with("RuntimeError: xxx"));
  CHECK(PrintableLine("short", 5) == "short");
  CHECK(PrintableLine("  spaced out  ", 100) == "spaced out");
}

std::string Recorded(const std::string& name) {
  std::ifstream in(std::string(FAKES_DIR) + "/stderr/" + name);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("stderr recorded from Debian's torch 1.13 torchrun",
          "[runner][failure]") {
  // two trials on torchrun's default port: its own store cannot bind
  CHECK(LastMeaningfulLine(Recorded("torchrun-port-busy.txt"))
            .starts_with("RuntimeError: The server socket has failed to "
                         "listen on any local network address. The server "
                         "socket has failed to bind to [::]:29500 (errno: 98 "
                         "- Address already in use)."));
  // rank 1 raised; torchrun's ChildFailedError summary follows
  CHECK(LastMeaningfulLine(Recorded("torchrun-rank-raised.txt")) ==
        "ValueError: learning rate 12 is too large");
  // rank 0 was SIGKILLed and printed nothing
  CHECK(LastMeaningfulLine(Recorded("torchrun-rank-killed.txt")) ==
        "Signal 9 (SIGKILL) received by PID 20605");
  // torchrun without --redirects/--tee on Python 3.11 (pytorch#92319)
  CHECK(LastMeaningfulLine(Recorded("torchrun-py311-tee-bug.txt")) ==
        "AttributeError: 'NoneType' object has no attribute 'get'");
}

}  // namespace
}  // namespace tuner::runner
