#include "autoscaler/kube/reflector.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace gpua::kube {
namespace {

std::string ResourceVersionOf(const JsonReader& object) {
  return object.Field("metadata").Field("resourceVersion").String().value_or("");
}

}  // namespace

absl::StatusOr<ListPage> ReadListPage(simdjson::dom::parser& parser, const std::string& body,
                                      ReflectorStore& store) {
  ListPage out;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) != simdjson::SUCCESS) {
    return absl::DataLossError("not JSON");
  }
  const JsonReader page(doc);
  const JsonReader items = page.Field("items");
  if (!page.IsObject() || items.type() != JsonReader::Type::kArray) {
    return absl::DataLossError("not a list");
  }
  GPUA_RETURN_IF_ERROR(items.ForEach([&](const JsonReader& item) {
    store.Listed(item.Rooted());
    return absl::OkStatus();
  }));
  const JsonReader meta = page.Field("metadata");
  out.resource_version = meta.Field("resourceVersion").String().value_or("");
  out.continue_token = meta.Field("continue").String().value_or("");
  return out;
}

Reflector::Reflector(ApiClient& client, std::string path, ReflectorStore& store, Clock& clock,
                     ReflectorOptions options)
    : client_(client),
      path_(std::move(path)),
      store_(store),
      clock_(clock),
      options_(std::move(options)) {
  paths_.push_back(path_);
  paths_.insert(paths_.end(), options_.fallback_paths.begin(), options_.fallback_paths.end());
}

std::string Reflector::Query(bool watch) const {
  std::string q;
  if (!options_.label_selector.empty()) {
    absl::StrAppend(&q, "&labelSelector=", QueryEscape(options_.label_selector));
  }
  if (!options_.field_selector.empty()) {
    absl::StrAppend(&q, "&fieldSelector=", QueryEscape(options_.field_selector));
  }
  if (watch) {
    absl::StrAppend(&q, "&watch=1&allowWatchBookmarks=true&timeoutSeconds=",
                    absl::ToInt64Seconds(options_.watch_timeout));
  }
  return q;
}

absl::StatusOr<std::string> Reflector::ListAll() {
  std::string continue_token, rv;
  store_.BeginList();
  do {
    std::string path = absl::StrCat(path_, "?limit=", options_.page_size, Query(false));
    if (!continue_token.empty()) absl::StrAppend(&path, "&continue=", QueryEscape(continue_token));
    GPUA_ASSIGN_OR_RETURN(HttpResponse res, client_.Request("GET", path));
    if (res.status != 200) return HttpStatusError(absl::StrCat("list ", path_), res);
    absl::StatusOr<ListPage> page = ReadListPage(parser_, res.body, store_);
    if (!page.ok()) {
      return absl::DataLossError(absl::StrCat("list ", path_, ": ", page.status().message()));
    }
    rv = std::move(page->resource_version);
    continue_token = std::move(page->continue_token);
  } while (!continue_token.empty());
  store_.EndList();
  return rv;
}

absl::StatusOr<std::string> Reflector::WatchOnce(std::string rv, const std::atomic<bool>& stop) {
  const std::string path = absl::StrCat(path_, "?resourceVersion=", QueryEscape(rv), Query(true));
  absl::Status problem;
  const auto on_line = [&](absl::string_view line) {
    const auto malformed = [&] {
      problem = absl::DataLossError(
          absl::StrCat("watch ", path_, ": malformed line: ", line.substr(0, 120)));
      return false;  // restart from the last event applied
    };
    simdjson::dom::element doc;
    if (parser_.parse(line.data(), line.size()).get(doc) != simdjson::SUCCESS) return malformed();
    const JsonReader event(doc);
    const JsonReader object = event.Field("object");
    if (!event.IsObject() || !object.IsObject()) return malformed();
    const absl::string_view type = event.Field("type").StringView().value_or("");
    if (type == "ERROR") {
      const long code = object.Field("code").Int().value_or(0);
      problem =
          HttpStatusError(absl::StrCat("watch ", path_),
                          {code, std::string(object.Field("message").StringView().value_or(""))});
      return false;
    }
    if (type == "ADDED") {
      store_.Add(object.Rooted());
    } else if (type == "MODIFIED") {
      store_.Update(object.Rooted());
    } else if (type == "DELETED") {
      store_.Remove(object.Rooted());
    } else if (type != "BOOKMARK") {
      problem = absl::DataLossError(absl::StrCat("watch ", path_, ": unknown event type ", type));
      return false;
    }
    if (const std::string next = ResourceVersionOf(object); !next.empty()) rv = next;
    return true;
  };
  std::string error_body;
  GPUA_ASSIGN_OR_RETURN(
      long status, client_.Stream(path, on_line, &stop, options_.watch_timeout + absl::Seconds(10),
                                  &error_body));
  if (status != 200) return HttpStatusError(absl::StrCat("watch ", path_), {status, error_body});
  if (!problem.ok()) return problem;
  return rv;
}

void Reflector::Backoff(int failures, const std::atomic<bool>& stop) {
  absl::Duration wait = options_.initial_backoff;
  for (int i = 1; i < failures && wait < options_.max_backoff; ++i) wait *= 2;
  wait = std::min(wait, options_.max_backoff);
  wait += wait * std::uniform_real_distribution<double>(0, 1)(jitter_);  // jitter 1.0
  clock_.SleepUnlessStopped(wait, stop);
}

void Reflector::ListedAbsent(const absl::Status& why, const std::atomic<bool>& stop) {
  store_.BeginList();
  store_.EndList();
  if (!said_absent_) {
    options_.log->Warning(absl::StrCat(why.message(), "; read as empty, and listed again every ",
                                       absl::FormatDuration(options_.absent_retry)));
    said_absent_ = true;
  }
  clock_.SleepUnlessStopped(options_.absent_retry, stop);
}

void Reflector::Run(const std::atomic<bool>& stop) {
  std::string rv;
  bool listed = false;
  int failures = 0;
  while (!stop) {
    absl::StatusOr<std::string> next = listed ? WatchOnce(rv, stop) : ListAll();
    if (next.ok()) {
      if (!listed && said_absent_) {
        options_.log->Info(absl::StrCat("listed ", path_, ": it is served and readable now"));
        said_absent_ = false;
      }
      rv = *next;
      listed = true;
      failures = 0;
      continue;  // a watch that ended resumes from where it got to
    }
    const bool absent = absl::IsNotFound(next.status()) || absl::IsPermissionDenied(next.status());
    if (options_.optional && absent) {
      if (listed) {  // its definition went while watched: list again, at every path
        listed = false;
        path_at_ = 0;
        path_ = paths_[0];
        continue;
      }
      if (absl::IsNotFound(next.status()) && path_at_ + 1 < paths_.size()) {
        path_ = paths_[++path_at_];  // another version of it may be served
        continue;
      }
      path_at_ = 0;
      path_ = paths_[0];
      ListedAbsent(next.status(), stop);
      continue;
    }
    if (next.status().code() == absl::StatusCode::kOutOfRange) {  // 410: relist now
      options_.log->Info(absl::StrCat(next.status().message(), "; listing again"));
      listed = false;
      continue;
    }
    // A bad line, 5xx, a timeout: after a pause, resume (or list) from where it got to.
    options_.log->Warning(next.status().message());
    Backoff(++failures, stop);
  }
}

}  // namespace gpua::kube
