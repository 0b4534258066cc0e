#!/usr/bin/env python3
"""Adds timeline_k15.cuh's marks to k15's batched kernel in a copy of the
tree (lab only, session 34; never applied to the repository itself):
    k15_marks.py ROOT
edits ROOT/include/tessel/kernels/gemm/k15_grouped.cuh (marks; the producer's
loop inlined from k13::produce_units to mark its first and last TMA) and
ROOT/src/kernels/gemm/k15_batched.cu (arm launch TESSEL_LAB_TL_AT, default
5000, and dump the stamps after it).  Text replacements that must each match
once: a changed kernel fails here, not silently."""
import sys

root = sys.argv[1]


def edit(path, pairs):
    s = open(path).read()
    for a, b in pairs:
        assert s.count(a) == 1, (path, a)
        s = s.replace(a, b)
    open(path, 'w').write(s)


edit(root + '/include/tessel/kernels/gemm/k15_grouped.cuh', [
    ('#include "tessel/kernels/gemm/k15_pingpong.cuh"\n',
     '#include "tessel/kernels/gemm/k15_pingpong.cuh"\n#include "../../../../bench/lab/timeline/timeline_k15.cuh"\n'),
    ('  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;\n',
     '  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;\n'
     '  const bool rec = *static_cast<volatile int*>(&lab_tl15::armed) != 0;\n'
     '  if (threadIdx.x == 0) lab_tl15::entry(rec);\n'),
    ('  __syncthreads();\n', '  __syncthreads();\n  if (threadIdx.x == 0) lab_tl15::mark(rec, 4);\n'),
    ('      k13::produce_units<X>(scheduler, pipe, shared, false);',
     '''      lab_tl15::mark(rec, 5);
      using OpA = typename X::OpA;
      using OpB = typename X::OpB;
      typename X::Pipeline::State write;
      bool first = true;
      for (k13::GroupUnit u; scheduler.next(u);) {
        const auto& p = scheduler.problem(u.g);
        if (first) {
          arch::sm90::prefetch_tensormap(&p.map_a);
          arch::sm90::prefetch_tensormap(&p.map_b);
        }
        const int ba = u.batch * p.a_batched, bb = u.batch * p.b_batched;
        for (int kt = 0; kt < p.k_tiles; ++kt, ++write) {
          pipe.producer_acquire(write, X::kStageBytes);
          OpA::Tma::load_batch(&p.map_a, shared.a[write.index()], pipe.full(write.index()), u.tile.m, kt, ba);
          OpB::Tma::load_batch(&p.map_b, shared.b[write.index()], pipe.full(write.index()), u.tile.n, kt, bb);
          if (first) lab_tl15::mark(rec, 6), first = false;
        }
      }
      lab_tl15::mark(rec, 7);'''),
    ('    typename X::FragC acc;  // (64,2,1) f32: 128 x 128 per warpgroup\n',
     '    typename X::FragC acc;  // (64,2,1) f32: 128 x 128 per warpgroup\n'
     '    const int js = 8 + 20 * wg + 4 * (i / 2);\n'
     '    const bool rj = rec && t == 0 && i / 2 < 4;\n'
     '    lab_tl15::mark(rj, js);\n'),
    ('    const auto hand_over = [&] {', '    lab_tl15::mark(rj, js + 1);\n    const auto hand_over = [&] {'),
    ('    k13::consume<X>(pipe, read, shared, thr_desc, 0, gp.k_tiles, acc, lane, hand_over);\n',
     '    k13::consume<X>(pipe, read, shared, thr_desc, 0, gp.k_tiles, acc, lane, hand_over);\n'
     '    lab_tl15::mark(rj, js + 2);\n'),
    ('    epilogue.store_beta0(tile, acc, t);\n', '    epilogue.store_beta0(tile, acc, t);\n    lab_tl15::mark(rj, js + 3);\n'),
    ('  X::template Epilogue<float>::finish(t);',
     '  X::template Epilogue<float>::finish(t);\n  if (t == 0) lab_tl15::mark(rec, 48 + wg);\n'
     '  if (t == 0 && wg == 0) lab_tl15::exit_ns(rec);\n'),
])
edit(root + '/src/kernels/gemm/k15_batched.cu', [
    ('#include "tessel/kernels/gemm/k15_grouped.cuh"\n', '#include "tessel/kernels/gemm/k15_grouped.cuh"\n\n#include <cstdlib>\n'),
    ('Status launch_batched_tiles(const GemmArgs& g, cudaStream_t stream) {',
     '''static Status launch_batched_tiles_lab(const GemmArgs& g, cudaStream_t stream);
Status launch_batched_tiles(const GemmArgs& g, cudaStream_t stream) {
  static int lab_calls = 0;
  static const int lab_at = std::getenv("TESSEL_LAB_TL_AT") ? std::atoi(std::getenv("TESSEL_LAB_TL_AT")) : 5000;
  ++lab_calls;
  if (lab_calls == lab_at) tessel::lab_tl15::arm<<<1, 1, 0, stream>>>();
  const Status s = launch_batched_tiles_lab(g, stream);
  if (lab_calls == lab_at) tessel::lab_tl15::dump<<<1, 1, 0, stream>>>(132);
  return s;
}
static Status launch_batched_tiles_lab(const GemmArgs& g, cudaStream_t stream) {'''),
])
