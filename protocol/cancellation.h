// Cooperative cancellation for requests: the dispatcher owns a
// CancellationSource per in-flight request and flips it on `$/cancelRequest`
// (or when the connection closes); handlers poll the CancellationToken.
// Both are cheap to copy and thread-safe (shared std::atomic<bool>).
#pragma once

#include <atomic>
#include <memory>

namespace argus::protocol {

class CancellationToken {
 public:
  // A token that is never cancelled.
  CancellationToken() = default;
  explicit CancellationToken(std::shared_ptr<const std::atomic<bool>> flag) : flag_(std::move(flag)) {}

  bool isCancelled() const { return flag_ && flag_->load(std::memory_order_acquire); }
  explicit operator bool() const { return isCancelled(); }

  // The shared flag (null for a never-cancelled token), e.g. to bridge into
  // the engine's own cancellation type.
  const std::shared_ptr<const std::atomic<bool>>& flag() const { return flag_; }

 private:
  std::shared_ptr<const std::atomic<bool>> flag_;
};

class CancellationSource {
 public:
  CancellationSource() : flag_(std::make_shared<std::atomic<bool>>(false)) {}

  void cancel() { flag_->store(true, std::memory_order_release); }
  bool isCancelled() const { return flag_->load(std::memory_order_acquire); }
  CancellationToken token() const { return CancellationToken(flag_); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

}  // namespace argus::protocol
