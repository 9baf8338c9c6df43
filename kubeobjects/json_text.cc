#include "kubeobjects/json_text.h"

#include <cmath>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gpua {
namespace {

using Json = nlohmann::json;

// nlohmann's SAX events built into a document, with an explicit stack (its own DOM builder
// is in its detail namespace and checks neither depth nor repeats).
class DocumentBuilder {
 public:
  explicit DocumentBuilder(Json* root) : root_(root) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool v) { return Put(v); }
  bool number_integer(Json::number_integer_t v) { return Put(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return Put(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& text) {
    // nlohmann refuses an overflow itself; this keeps the promise if that ever changes.
    if (!std::isfinite(v)) return Fail(absl::StrCat("number ", text, " is out of range"));
    return Put(v);
  }
  bool string(Json::string_t& v) { return Put(std::move(v)); }
  bool binary(Json::binary_t& v) { return Put(Json::binary(std::move(v))); }
  bool start_object(std::size_t) { return Open(Json::object()); }
  bool start_array(std::size_t) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(Json::string_t& k) {
    Level& level = stack_.back();
    if (level.value->contains(k)) {
      return Fail(absl::StrCat(
          "key \"", k, "\" appears twice in ",
          stack_.size() == 1 ? "the top-level object" : Path(/*with_last_key=*/false)));
    }
    level.key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    absl::string_view what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." without the tag.
    if (absl::StartsWith(what, "[json.exception.")) {
      const size_t close = what.find("] ");
      if (close != absl::string_view::npos) what.remove_prefix(close + 2);
    }
    return Fail(std::string(what));
  }

  const std::string& error() const { return error_; }

 private:
  struct Level {
    Json* value;
    std::string key;  // the member being read, in an object
  };

  bool Fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }

  Json* Place(Json v) {
    if (stack_.empty()) {
      *root_ = std::move(v);
      return root_;
    }
    Level& parent = stack_.back();
    if (parent.value->is_object()) {
      Json& slot = (*parent.value)[parent.key];
      slot = std::move(v);
      return &slot;
    }
    parent.value->push_back(std::move(v));
    return &parent.value->back();
  }

  bool Put(Json v) {
    Place(std::move(v));
    return true;
  }

  bool Open(Json container) {
    if (static_cast<int>(stack_.size()) >= kMaxJsonDepth) {
      return Fail(absl::StrCat("nested more than ", kMaxJsonDepth, " levels deep, at ", Path()));
    }
    stack_.push_back({Place(std::move(container)), ""});
    return true;
  }

  bool Close() {
    stack_.pop_back();
    return true;
  }

  // The path of the value being read: "spec.containers[0].name", its first steps only when
  // deep; without the last key, the path of the object being read.
  std::string Path(bool with_last_key = true) const {
    constexpr size_t kShown = 8;
    std::string out;
    for (size_t i = 0; i < stack_.size() && i < kShown; ++i) {
      const Level& level = stack_[i];
      if (!with_last_key && i + 1 == stack_.size()) break;
      if (level.value->is_object()) {
        absl::StrAppend(&out, out.empty() ? "" : ".", level.key);
      } else {
        absl::StrAppend(&out, "[", level.value->empty() ? 0 : level.value->size() - 1, "]");
      }
    }
    if (stack_.size() > kShown) absl::StrAppend(&out, "...");
    return out.empty() ? "the top level" : out;
  }

  Json* root_;
  std::vector<Level> stack_;
  std::string error_;
};

absl::Status Invalid(absl::string_view source, absl::string_view where, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": invalid JSON", where, ": ", why));
}

}  // namespace

absl::StatusOr<Json> ParseJson(absl::string_view text, absl::string_view source) {
  Json doc;
  DocumentBuilder builder(&doc);
  if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
    return Invalid(source, "", builder.error().empty() ? "cannot be read" : builder.error());
  }
  return doc;
}

absl::StatusOr<std::vector<Json>> ParseJsonSequence(absl::string_view text,
                                                    absl::string_view source) {
  // Most files hold one document, read faster from memory than through a stream.
  if (absl::StatusOr<Json> whole = ParseJson(text, source); whole.ok()) {
    return std::vector<Json>{*std::move(whole)};
  }
  std::vector<Json> docs;
  std::istringstream in{std::string(text)};
  while ((in >> std::ws).peek() != std::char_traits<char>::eof()) {
    Json doc;
    DocumentBuilder builder(&doc);
    if (!Json::sax_parse(in, &builder, nlohmann::json::input_format_t::json, /*strict=*/false)) {
      const std::string where =
          docs.empty() ? std::string() : absl::StrCat(" in document ", docs.size() + 1);
      return Invalid(source, where, builder.error().empty() ? "cannot be read" : builder.error());
    }
    docs.push_back(std::move(doc));
  }
  return docs;
}

}  // namespace gpua
