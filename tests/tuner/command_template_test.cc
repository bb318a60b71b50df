#include "tuner/config/command_template.h"

#include "tests/catch.h"

namespace tuner {
namespace {

TEST_CASE("commands split like a shell without expansion", "[tuner]") {
  auto words = SplitCommand(R"(python3 a.py --x '{lr} y' "q\"z" a\ b $HOME)");
  REQUIRE(words.ok());
  CHECK(words.value() == std::vector<std::string>{"python3", "a.py", "--x",
                                                  "{lr} y", "q\"z", "a b",
                                                  "$HOME"});
  CHECK_FALSE(SplitCommand("echo 'open").ok());
  CHECK(SplitCommand("a ''").value() == std::vector<std::string>{"a", ""});
}

TEST_CASE("placeholders are found and filled and braces escape", "[tuner]") {
  CHECK(Placeholders("--lr={lr} {{x}} {trial_dir}/out").value() ==
        std::vector<std::string>{"lr", "trial_dir"});
  CHECK_FALSE(Placeholders("--lr={lr").ok());
  auto lookup = [](std::string_view name) -> std::optional<std::string> {
    if (name == "lr") return "0.01";
    return std::nullopt;
  };
  CHECK(Fill("--lr={lr} {{x}} {other}", lookup) == "--lr=0.01 {x} {other}");
  CHECK(ShellQuote("it's; rm -rf /") == R"('it'\''s; rm -rf /')");
}

}  // namespace
}  // namespace tuner
