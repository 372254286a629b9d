// __match_any_sync / __match_all_sync (match.any.sync.b32, match.all.sync.b64 with its
// predicate), in a partly divergent warp: lanes whose key is odd take no part in the all.
// any[i] = the mask of the lanes with key[i]; all[i] = the all-mask (0 if the values differ)
// and pred[i] whether they agreed, for even-key lanes (others keep the poison).
extern "C" __global__ void warp_match(const unsigned* key, const unsigned long long* wide,
                                      unsigned* any, unsigned* all, int* pred) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned k = key[i];
  any[i] = __match_any_sync(0xffffffffu, k);
  if ((k & 1) == 0) {
    const unsigned even = __activemask();
    int p = 0;
    all[i] = __match_all_sync(even, wide[i], &p);
    pred[i] = p;
  }
}
