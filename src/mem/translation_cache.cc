#include "mem/translation_cache.h"

namespace xpusim::mem {

bool TranslationCache::current(std::uint64_t generation) {
  if (generation < generation_) return false;
  if (generation > generation_) {
    if (!lru_.empty()) ++counts_.flushes;
    lru_.clear();
    where_.clear();
    generation_ = generation;
  }
  return true;
}

bool TranslationCache::lookup(std::uint32_t seg, std::uint64_t page, std::uint64_t generation) {
  const auto it = current(generation) ? where_.find({seg, page}) : where_.end();
  if (it == where_.end()) {
    ++counts_.misses;
    return false;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++counts_.hits;
  return true;
}

void TranslationCache::fill(std::uint32_t seg, std::uint64_t page, std::uint64_t generation) {
  if (entries_ == 0 || !current(generation)) return;
  const Key key{seg, page};
  if (const auto it = where_.find(key); it != where_.end()) {  // two misses raced: one entry
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  if (lru_.size() == entries_) {
    where_.erase(lru_.back());
    lru_.pop_back();
    ++counts_.evictions;
  }
  lru_.push_front(key);
  where_.emplace(key, lru_.begin());
}

}  // namespace xpusim::mem
