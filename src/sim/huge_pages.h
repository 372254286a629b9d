// Host huge pages for the simulator's own memory. A full chip keeps tens of megabytes of state
// (L2 tags, coroutine frames, warp slots, calendars, event buckets) that the event loop touches
// at random; on 4 KiB pages many of those touches also miss the host's TLB. glibc (2.35 on)
// backs malloc with transparent huge pages under GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which it
// reads only as a process starts, so a program that wants it re-executes itself once with it
// (docs/performance.md, "Host techniques": 10-20 % on the full-chip streaming run).
#pragma once

#include <string_view>

namespace xpusim::sim {

// Whether to re-execute with the tunable (pure, for tests): not when XPUSIM_HUGE_PAGES is "0"
// (`opt_out`), when GLIBC_TUNABLES (`tunables`, null if unset) already names the tunable (the
// user's choice, and no second re-execution), under valgrind (LD_PRELOAD, `preload`, names its
// preload library: an exec would leave valgrind), or when the kernel's transparent huge pages
// (`thp`, /sys/kernel/mm/transparent_hugepage/enabled) are not "always" or "madvise".
bool wants_huge_page_reexec(const char* tunables, const char* opt_out, const char* preload,
                            std::string_view thp);

// Whether `exe`, what /proc/self/exe names, is the dynamic loader rather than the program
// (`ld-linux-x86-64.so.2 ./xpusim ...`, a way to run a build on a machine without its
// libraries): re-executing that would hand the program's arguments to the loader.
bool is_dynamic_loader(std::string_view exe);

// Re-executes this program (/proc/self/exe, same arguments) with the tunable added when
// wants_huge_page_reexec() says so and glibc is 2.35 or later; returns when it does not (or the
// exec fails, or the program was started through the dynamic loader). Call it first in main(),
// before any thread starts.
void reexec_with_huge_pages(char** argv);

}  // namespace xpusim::sim
