#include "tuner/config/command_template.h"

#include <cctype>

namespace tuner {

core::Result<std::vector<std::string>> SplitCommand(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < command.size() &&
                 (command[i + 1] == '"' || command[i + 1] == '\\')) {
        word.push_back(command[++i]);
      } else {
        word.push_back(c);
      }
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      word.push_back(command[++i]);
      in_word = true;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (quote) {
    return core::InvalidArgument(std::string("unterminated ") + quote +
                                 " quote");
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

core::Result<std::vector<std::string>> Placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "{{") == 0 || text.compare(i, 2, "}}") == 0) {
      ++i;
    } else if (text[i] == '{') {
      size_t close = text.find('}', i);
      if (close == std::string_view::npos) {
        return core::InvalidArgument("unclosed '{' (write {{ for a brace)");
      }
      names.emplace_back(text.substr(i + 1, close - i - 1));
      i = close;
    }
  }
  return names;
}

std::string Fill(
    std::string_view text,
    const std::function<std::optional<std::string>(std::string_view)>& lookup) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "{{") == 0 || text.compare(i, 2, "}}") == 0) {
      out.push_back(text[i++]);
    } else if (text[i] == '{' && text.find('}', i) != std::string_view::npos) {
      size_t close = text.find('}', i);
      std::string_view name = text.substr(i + 1, close - i - 1);
      auto value = lookup(name);
      out += value ? *value : std::string(text.substr(i, close - i + 1));
      i = close;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::string ShellQuoteWord(std::string_view word) {
  bool plain = !word.empty();
  for (char c : word) {
    plain &= std::isalnum(static_cast<unsigned char>(c)) ||
             std::string_view("-_./=:,+@%{}").find(c) != std::string_view::npos;
  }
  return plain ? std::string(word) : ShellQuote(word);
}

}  // namespace tuner
