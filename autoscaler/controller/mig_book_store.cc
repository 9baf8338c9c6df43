#include "autoscaler/controller/mig_book_store.h"

#include "absl/strings/str_cat.h"

namespace gpua {

MigLayoutBook MigBookStore::Recall(const ClusterView& view) {
  if (recalled_) return {};
  recalled_ = true;
  ConfigMapPtr cm = view.FindConfigMap(options_.namespace_name, options_.configmap_name);
  if (cm == nullptr) return {};
  auto text = cm->annotations.find(kMigLayoutBookAnnotation);
  if (text == cm->annotations.end()) return {};
  absl::StatusOr<MigLayoutBook> book = MigLayoutBook::FromJson(
      text->second, absl::StrCat("ConfigMap ", cm->namespace_name, "/", cm->name, " annotation ",
                                 kMigLayoutBookAnnotation));
  if (!book.ok()) {
    // Nothing is lost by starting empty that a wrong layout would not cost more; the next
    // Keep writes a readable book over it.
    log_.Error(absl::StrCat(book.status().message(), "; new MIG nodes on their way get no layout"));
    kept_.reset();
    return {};
  }
  kept_ = *book;
  if (!book->empty()) {
    log_.Info(absl::StrCat("MIG layouts of nodes on their way, read back: ", book->ToJson()));
  }
  return *std::move(book);
}

absl::Status MigBookStore::Keep(const MigLayoutBook& book) {
  if (kept_.has_value() && book == *kept_) return absl::OkStatus();
  const absl::Status s = writer_.AnnotateConfigMap(options_.namespace_name, options_.configmap_name,
                                                   {{kMigLayoutBookAnnotation, book.ToJson()}});
  if (s.ok()) {
    kept_ = book;
    last_error_.clear();
    return s;
  }
  const std::string message =
      absl::StrCat("Keeping the MIG layouts of nodes on their way in ConfigMap ",
                   options_.namespace_name, "/", options_.configmap_name, " failed: ", s.message(),
                   "; a restart before it is written gives their nodes no layout");
  if (message != last_error_) log_.Warning(message);
  last_error_ = message;
  return s;
}

}  // namespace gpua
