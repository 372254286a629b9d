// Task<T>: a lazily started C++20 coroutine. A task runs either
//  - as a child: `co_await child_task()` starts it and resumes the caller when it returns
//    (symmetric transfer, so deep chains do not grow the stack), or
//  - as a root process: Simulation::spawn() takes it over and starts it at the current tick.
// Destroying a suspended task destroys its frame and, through it, the awaiters it was
// suspended on, which unhook themselves from queues and wait lists (no leaks at teardown).
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "sim/result.h"

namespace xpusim::sim {

// Root-task bookkeeping owned by the Simulation (see simulation.h).
class ProcessState;
void process_finished(ProcessState& state, std::exception_ptr error) noexcept;

namespace detail {

// A task's frame is allocated with its size and a mark in front, for prefetch hints
// (frame_bytes). Clang may put a frame whose caller it inlined into that caller's frame, without
// operator new: the mark tells.
inline constexpr std::size_t kFrameHeader = 16;
inline constexpr std::uint64_t kFrameMark = 0x7870'7573'696d'4652;  // "xpusimFR"
static_assert(kFrameHeader % __STDCPP_DEFAULT_NEW_ALIGNMENT__ == 0);

struct PromiseBase {
  static void* operator new(std::size_t n) {
    auto* p = static_cast<std::byte*>(::operator new(n + kFrameHeader));
    reinterpret_cast<std::uint64_t*>(p)[0] = n;
    reinterpret_cast<std::uint64_t*>(p)[1] = kFrameMark;
    return p + kFrameHeader;
  }
  // Unsized: Clang declares the sized global form only with -fsized-deallocation.
  static void operator delete(void* p) noexcept {
    ::operator delete(static_cast<std::byte*>(p) - kFrameHeader);
  }

  std::coroutine_handle<> continuation;
  std::exception_ptr exception;
  ProcessState* process = nullptr;

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      PromiseBase& p = h.promise();
      if (p.continuation) return p.continuation;
      if (p.process != nullptr) {
        // A root task: report, then free the frame right here (it is suspended, so legal).
        ProcessState* state = p.process;
        std::exception_ptr error = p.exception;
        h.destroy();
        process_finished(*state, std::move(error));
      }
      return std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

}  // namespace detail

// The size of a suspended Task's coroutine frame, for prefetch hints: 0 (not known) for another
// coroutine type or a frame operator new did not allocate. The coroutine ABI of GCC and Clang
// puts the frame (address()) where the promise's operator new returned it, so the size and the
// mark sit just before it (before an elided frame lie the enclosing frame's bytes: no mark).
template <class P>
std::size_t frame_bytes(std::coroutine_handle<P> h) {
  if constexpr (std::is_base_of_v<detail::PromiseBase, P>) {
    const auto* head = reinterpret_cast<const std::uint64_t*>(
        static_cast<const std::byte*>(h.address()) - detail::kFrameHeader);
    return head[1] == detail::kFrameMark ? static_cast<std::size_t>(head[0]) : 0;
  } else {
    return 0;
  }
}

template <class T = void>
class Task;

namespace detail {

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : handle_(h) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  bool valid() const { return static_cast<bool>(handle_); }
  // Gives up ownership of the frame (used by Simulation::spawn).
  Handle release() { return std::exchange(handle_, {}); }

  // Awaiting a task runs it to completion as a child of the awaiting coroutine.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept {
    handle_.promise().continuation = caller;
    return handle_;
  }
  T await_resume() {
    promise_type& p = handle_.promise();
    if (p.exception) std::rethrow_exception(p.exception);
    if constexpr (!std::is_void_v<T>) {
      XPUSIM_CHECK(p.value.has_value(), "task finished without a value");
      return std::move(*p.value);
    }
  }

 private:
  Handle handle_;
};

namespace detail {
template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail

}  // namespace xpusim::sim
