#include "autoscaler/kube/api_client.h"

#include <curl/curl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "autoscaler/kube/exec_credential_plugin.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "kubeobjects/api_time.h"
#include "kubeobjects/json_reader.h"
#include "kubeobjects/json_text.h"

namespace gpua::kube {

absl::Status HttpStatusError(absl::string_view what, const HttpResponse& res) {
  const std::string message =
      absl::StrCat(what, ": HTTP ", res.status, ": ", absl::string_view(res.body).substr(0, 300));
  if (res.status == 404) return absl::NotFoundError(message);
  if (res.status == 401 || res.status == 403) return absl::PermissionDeniedError(message);
  if (res.status == 409) return absl::AbortedError(message);
  if (res.status == 410) return absl::OutOfRangeError(message);
  if (res.status == 429 || res.status >= 500) return absl::UnavailableError(message);
  return absl::FailedPreconditionError(message);
}

std::string QueryEscape(absl::string_view value) {
  std::string out;
  for (char c : value) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out.push_back(c);
    } else {
      absl::StrAppend(&out, "%", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    }
  }
  return out;
}
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

absl::Time FileModified(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return absl::InfinitePast();
  return absl::TimeFromTimespec(st.st_mtim);
}

size_t AppendBody(char* data, size_t size, size_t count, void* into) {
  static_cast<std::string*>(into)->append(data, size * count);
  return size * count;
}

struct StreamState {
  CURL* curl;
  const std::function<bool(absl::string_view)>* on_line;
  const std::atomic<bool>* stop;
  const std::atomic<bool>* cancelled;  // the client's: shutting down
  std::string pending;
  std::string* error_body;
  bool stopped = false;
};

size_t StreamBody(char* data, size_t size, size_t count, void* user) {
  auto* s = static_cast<StreamState*>(user);
  long status = 0;
  curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) {
    if (s->error_body != nullptr) s->error_body->append(data, size * count);
    return size * count;
  }
  s->pending.append(data, size * count);
  size_t start = 0;
  for (size_t nl; (nl = s->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    absl::string_view line(s->pending.data() + start, nl - start);
    if (!line.empty() && !(*s->on_line)(line)) {
      s->stopped = true;
      return 0;  // tells curl to stop
    }
  }
  s->pending.erase(0, start);
  return size * count;
}

int StreamProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* s = static_cast<StreamState*>(user);
  if (s->cancelled->load()) return 1;  // an error: the caller is going away
  if (s->stop != nullptr && s->stop->load()) {
    s->stopped = true;
    return 1;
  }
  return 0;
}

// An ordinary request ends early only when the client is cancelled.
int CancelProgress(void* cancelled, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(cancelled)->load() ? 1 : 0;
}

}  // namespace

struct ApiClient::Credentials {
  absl::Mutex mu;
  std::string file_token ABSL_GUARDED_BY(mu);
  absl::Time file_modified ABSL_GUARDED_BY(mu) = absl::InfinitePast();
  std::string exec_token ABSL_GUARDED_BY(mu);
  absl::Time exec_expiry ABSL_GUARDED_BY(mu) = absl::InfinitePast();
  CURLSH* share = nullptr;  // DNS and TLS sessions, reused across requests
  std::array<absl::Mutex, CURL_LOCK_DATA_LAST> locks;
  // Easy handles between calls, each with its live connections. libcurl does not support a
  // connection cache shared by threads at once (CURL_LOCK_DATA_CONNECT), and informers,
  // the event sender and the loop call at once; a handle is one thread's at a time instead.
  absl::Mutex handles_mu;
  std::vector<CURL*> idle_handles ABSL_GUARDED_BY(handles_mu);

  CURL* TakeHandle() {
    {
      absl::MutexLock lock(&handles_mu);
      if (!idle_handles.empty()) {
        CURL* curl = idle_handles.back();
        idle_handles.pop_back();
        curl_easy_reset(curl);  // options gone, connections and caches kept
        return curl;
      }
    }
    return curl_easy_init();
  }
  void ReturnHandle(CURL* curl) {
    constexpr size_t kMaxIdleHandles = 16;
    {
      absl::MutexLock lock(&handles_mu);
      if (idle_handles.size() < kMaxIdleHandles) {
        idle_handles.push_back(curl);
        return;
      }
    }
    curl_easy_cleanup(curl);
  }
  ~Credentials() {
    absl::MutexLock lock(&handles_mu);
    for (CURL* curl : idle_handles) curl_easy_cleanup(curl);  // before the share they use
    curl_share_cleanup(share);
  }
};

RateLimiter::RateLimiter(double qps, int burst, Clock& clock)
    : clock_(clock),
      qps_(qps),
      burst_(std::max(1, burst)),
      tokens_(std::max(1, burst)),
      last_(clock.Now()) {}

void RateLimiter::Wait() {
  if (qps_ <= 0) return;
  absl::Duration wait;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = clock_.Now();
    tokens_ = std::min(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * qps_);
    last_ = now;
    tokens_ -= 1;  // may go below zero: the debt is what this caller waits out
    if (tokens_ >= 0) return;
    wait = absl::Seconds(-tokens_ / qps_);
  }
  clock_.SleepFor(wait);
}

absl::StatusOr<std::unique_ptr<ApiClient>> ApiClient::Create(RestConfig config, Clock& clock,
                                                             ClientOptions options) {
  if (!absl::StartsWith(config.server, "https://") && !absl::StartsWith(config.server, "http://")) {
    return absl::InvalidArgumentError(
        absl::StrCat(config.source, ": server \"", config.server, "\" is not an http(s) URL"));
  }
  return std::make_unique<ApiClient>(std::move(config), clock, std::move(options));
}

ApiClient::ApiClient(RestConfig config, Clock& clock, ClientOptions options)
    : config_(std::move(config)),
      clock_(clock),
      options_(std::move(options)),
      limiter_(options_.qps, options_.burst, clock),
      credentials_(std::make_unique<Credentials>()) {
  GlobalInit();
  Credentials* c = credentials_.get();
  c->share = curl_share_init();
  curl_share_setopt(
      c->share, CURLSHOPT_LOCKFUNC, +[](CURL*, curl_lock_data data, curl_lock_access, void* user) {
        static_cast<Credentials*>(user)->locks[data].Lock();
      });
  curl_share_setopt(
      c->share, CURLSHOPT_UNLOCKFUNC, +[](CURL*, curl_lock_data data, void* user) {
        static_cast<Credentials*>(user)->locks[data].Unlock();
      });
  curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
  curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

ApiClient::~ApiClient() = default;

absl::StatusOr<std::string> ApiClient::BearerToken() {
  Credentials& c = *credentials_;
  if (!config_.token_file.empty()) {
    const absl::Time modified = FileModified(config_.token_file);
    absl::MutexLock lock(&c.mu);
    if (modified != c.file_modified || c.file_token.empty()) {  // rotated, or never read
      absl::StatusOr<std::string> token = ReadFile(config_.token_file);
      if (!token.ok()) {
        if (!c.file_token.empty()) return c.file_token;  // keep the last good one
        return absl::UnauthenticatedError(token.status().message());
      }
      c.file_token = std::string(absl::StripAsciiWhitespace(*token));
      c.file_modified = modified;
    }
    return c.file_token;
  }
  if (config_.exec.has_value()) {
    absl::MutexLock lock(&c.mu);
    if (!c.exec_token.empty() && clock_.Now() < c.exec_expiry) return c.exec_token;
    GPUA_ASSIGN_OR_RETURN(std::string out, RunExecCredentialPlugin(*config_.exec, options_.timeout,
                                                                   clock_, cancelled_));
    absl::StatusOr<nlohmann::json> read =
        ParseJson(out, absl::StrCat("exec plugin ", config_.exec->command, ": output"));
    if (!read.ok()) return absl::UnauthenticatedError(read.status().message());
    const nlohmann::json& cred = *read;
    const JsonReader status =
        JsonReader(cred, absl::StrCat("exec plugin ", config_.exec->command, ": ExecCredential "))
            .Field("status");
    absl::StatusOr<std::string> token = status.Field("token").String();
    if (!token.ok() || token->empty()) {
      return absl::UnauthenticatedError(
          token.ok() ? status.Field("token").Error("missing").message() : token.status().message());
    }
    c.exec_token = *std::move(token);
    // No expiry (or one that cannot be read): good until the server refuses it.
    const absl::string_view expiry = status.Field("expirationTimestamp").StringView().value_or("");
    if (!ParseApiTime(expiry, &c.exec_expiry)) c.exec_expiry = absl::InfiniteFuture();
    return c.exec_token;
  }
  return config_.token;
}

namespace {

// Where a call goes and as whom: the server and its TLS, the client's options, the connection
// cache shared by the calls, and the bearer token ("": none).
struct CallTarget {
  const RestConfig& config;
  const ClientOptions& options;
  CURLSH* share;
  const std::string& token;
};

// An easy handle set up for one call to the config's server.
class Call {
 public:
  Call(const CallTarget& target, CURL* handle, absl::string_view method, absl::string_view path,
       absl::Duration timeout)
      : curl_(handle) {
    const RestConfig& config = target.config;
    const ClientOptions& options = target.options;
    const std::string& token = target.token;
    CURLSH* share = target.share;
    url_ = absl::StrCat(absl::StripSuffix(config.server, "/"), path);
    curl_easy_setopt(curl_, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl_, CURLOPT_SHARE, share);
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(absl::ToInt64Milliseconds(timeout)));
    curl_easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT_MS, 10'000L);
    curl_easy_setopt(curl_, CURLOPT_USERAGENT, options.user_agent.c_str());
    method_ = std::string(method);
    curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method_.c_str());
    if (config.insecure_skip_tls_verify) {
      curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!config.ca_pem.empty()) Blob(CURLOPT_CAINFO_BLOB, config.ca_pem);
    if (!config.client_cert_pem.empty()) {
      Blob(CURLOPT_SSLCERT_BLOB, config.client_cert_pem);
      Blob(CURLOPT_SSLKEY_BLOB, config.client_key_pem);
    }
    headers_ = curl_slist_append(headers_, "Accept: application/json");
    if (!token.empty()) {
      auth_ = absl::StrCat("Authorization: Bearer ", token);
      headers_ = curl_slist_append(headers_, auth_.c_str());
    }
  }
  ~Call() {
    // The handle outlives the call in the pool: nothing of the call's may stay set on it.
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers_);
  }

  CURL* curl() const { return curl_; }

  void Body(absl::string_view body, absl::string_view content_type) {
    body_ = std::string(body);
    content_type_ = absl::StrCat("Content-Type: ", content_type);
    headers_ = curl_slist_append(headers_, content_type_.c_str());
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body_.c_str());
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body_.size()));
  }

  // Performs it; a transport failure is an error naming the URL.
  absl::StatusOr<long> Perform(bool answered_is_enough = false) {
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    const CURLcode code = curl_easy_perform(curl_);
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    if (code == CURLE_OK || (answered_is_enough && status != 0)) return status;
    const std::string what = absl::StrCat(method_, " ", url_, ": ", curl_easy_strerror(code));
    if (code == CURLE_OPERATION_TIMEDOUT) return absl::DeadlineExceededError(what);
    if (code == CURLE_ABORTED_BY_CALLBACK) return absl::CancelledError(what);
    return absl::UnavailableError(what);
  }

 private:
  void Blob(CURLoption option, const std::string& pem) {
    curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl_, option, &blob);
  }

  CURL* curl_;
  curl_slist* headers_ = nullptr;
  std::string url_, method_, auth_, body_, content_type_;
};

}  // namespace

void ApiClient::Cancel() { cancelled_ = true; }

absl::StatusOr<HttpResponse> ApiClient::Request(absl::string_view method, absl::string_view path,
                                                absl::string_view body,
                                                absl::string_view content_type,
                                                absl::Duration timeout) {
  if (cancelled_) return absl::CancelledError(absl::StrCat(method, " ", path, ": shutting down"));
  GPUA_ASSIGN_OR_RETURN(std::string token, BearerToken());
  limiter_.Wait();
  CURL* handle = credentials_->TakeHandle();
  absl::Cleanup give_back = [&] { credentials_->ReturnHandle(handle); };
  Call call({config_, options_, credentials_->share, token}, handle, method, path,
            timeout > absl::ZeroDuration() ? timeout : options_.timeout);
  HttpResponse response;
  curl_easy_setopt(call.curl(), CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(call.curl(), CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(call.curl(), CURLOPT_XFERINFOFUNCTION, CancelProgress);
  curl_easy_setopt(call.curl(), CURLOPT_XFERINFODATA, &cancelled_);
  curl_easy_setopt(call.curl(), CURLOPT_NOPROGRESS, 0L);
  if (!body.empty()) call.Body(body, content_type);
  GPUA_ASSIGN_OR_RETURN(response.status, call.Perform());
  return response;
}

absl::StatusOr<long> ApiClient::Stream(absl::string_view path,
                                       const std::function<bool(absl::string_view)>& on_line,
                                       const std::atomic<bool>* stop, absl::Duration timeout,
                                       std::string* error_body) {
  if (cancelled_) return absl::CancelledError(absl::StrCat("GET ", path, ": shutting down"));
  GPUA_ASSIGN_OR_RETURN(std::string token, BearerToken());
  limiter_.Wait();
  CURL* handle = credentials_->TakeHandle();
  absl::Cleanup give_back = [&] { credentials_->ReturnHandle(handle); };
  Call call({config_, options_, credentials_->share, token}, handle, "GET", path, timeout);
  StreamState state{call.curl(), &on_line, stop, &cancelled_, "", error_body};
  curl_easy_setopt(call.curl(), CURLOPT_WRITEFUNCTION, StreamBody);
  curl_easy_setopt(call.curl(), CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(call.curl(), CURLOPT_XFERINFOFUNCTION, StreamProgress);
  curl_easy_setopt(call.curl(), CURLOPT_XFERINFODATA, &state);
  curl_easy_setopt(call.curl(), CURLOPT_NOPROGRESS, 0L);
  // Once the response has begun, its end, our stop and the timeout all end it normally: the
  // caller resumes the watch. Before that, a failure is an error.
  absl::StatusOr<long> status = call.Perform(/*answered_is_enough=*/true);
  if (!status.ok() && state.stopped) return 200L;
  return status;
}

}  // namespace gpua::kube
