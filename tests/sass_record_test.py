#!/usr/bin/env python3
"""Tests of tests/sass_record.py's comparison on made-up records (no CUDA).

usage: sass_record_test.py [unittest options]
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_record  # noqa: E402

NVCC = "Cuda compilation tools, release 13.0, V13.0.88"
BUILD = "gemm=one ladder=one gencode=-gencode=arch=compute_90a,code=sm_90a type=Release"


def row(reg=168, total=1000, **kw):
    r = dict.fromkeys(sass_record.EXACT + sass_record.CLASSES, 0)
    r.update(reg=reg, total=total, shared=1024, HGMMA=4)
    r.update(kw)
    return r


class Compare(unittest.TestCase):
    def verdict(self, old, new, nvcc=NVCC, build=BUILD):
        return sass_record.check(sass_record.format_record(NVCC, BUILD, old), new, nvcc, build)

    def test_same_passes(self):
        code, lines = self.verdict({"k": row()}, {"k": row()})
        self.assertEqual(code, 0)
        self.assertEqual(lines[-1], "1 passed, 0 failed")

    def test_registers_changed_fails(self):
        code, lines = self.verdict({"k": row()}, {"k": row(reg=170)})
        self.assertEqual(code, 1)
        self.assertIn("reg 168 -> 170", lines[0])

    def test_spills_fail(self):
        for field in ("stack", "local", "ldl_stl", "shared"):
            code, _ = self.verdict({"k": row()}, {"k": row(**{field: 8})})
            self.assertEqual(code, 1, field)

    def test_instructions_within_one_percent_pass(self):
        code, lines = self.verdict({"k": row()}, {"k": row(total=1005, LDS=3)})
        self.assertEqual(code, 0)
        self.assertIn("total 1000 -> 1005 (+0.50 %)", lines[0])  # reported, not failed
        self.assertIn("LDS 0 -> 3", lines[0])
        code, _ = self.verdict({"k": row()}, {"k": row(total=990)})
        self.assertEqual(code, 0)  # exactly 1 %

    def test_instructions_beyond_one_percent_fail(self):
        for total in (1020, 980):
            code, lines = self.verdict({"k": row()}, {"k": row(total=total)})
            self.assertEqual(code, 1, total)
            self.assertTrue(lines[0].startswith("FAIL"))

    def test_new_and_gone_kernels_fail(self):
        code, lines = self.verdict({"a": row()}, {"a": row(), "b": row()})
        self.assertEqual(code, 1)
        self.assertIn("not in the record", lines[1])
        code, lines = self.verdict({"a": row(), "b": row()}, {"a": row()})
        self.assertEqual(code, 1)
        self.assertIn("not built", lines[1])

    def test_other_nvcc_or_build_skips(self):
        code, lines = self.verdict({"k": row()}, {"k": row(reg=1)}, nvcc=NVCC.replace("13.0", "13.1"))
        self.assertEqual(code, sass_record.SKIP)
        self.assertTrue(lines[0].startswith("SKIP"))
        code, _ = self.verdict({"k": row()}, {"k": row()}, build=BUILD.replace("gemm=one", "gemm=all"))
        self.assertEqual(code, sass_record.SKIP)


class Parse(unittest.TestCase):
    def test_round_trip(self):
        rows = {"_Z1bv": row(total=7), "_Z1av": row(reg=40)}
        text = sass_record.format_record(NVCC, BUILD, rows)
        meta, back = sass_record.parse_record(text)
        self.assertEqual(meta, {"nvcc": NVCC, "build": BUILD})
        self.assertEqual(back, rows)
        self.assertLess(text.index("_Z1av"), text.index("_Z1bv"))  # sorted: diffs stay small

    def test_anonymous_namespace_hash_dropped(self):
        # nvcc's hash of the source path differs between two clones.
        a = sass_record.stable_name("_ZN6tessel11gemm_launch44_GLOBAL__N__aa41e7a6_11_epilogue_cu_b7e026aa14applyEv")
        b = sass_record.stable_name("_ZN6tessel11gemm_launch44_GLOBAL__N__6adbe1a3_11_epilogue_cu_b7e026aa14applyEv")
        self.assertEqual(a, b)
        self.assertEqual(a, "_ZN6tessel11gemm_launch23_GLOBAL__N__epilogue_cu14applyEv")
        self.assertEqual(sass_record.stable_name("_Z3fooi"), "_Z3fooi")

    def test_resource_usage_and_classes(self):
        usage = sass_record.parse_resource_usage(
            " Function _Z1kv:\n  REG:168 STACK:0 SHARED:1024 LOCAL:16 CONSTANT[0]:1188 TEXTURE:0\n")
        self.assertEqual(usage, {"_Z1kv": {"reg": 168, "stack": 0, "shared": 1024, "local": 16}})
        counts = sass_record.count_opcodes(["HGMMA.64x128x16.F32.BF16", "LDSM.16.M88.4", "LDS.U.128", "NOP", "STL.64",
                                            "SYNCS.ARRIVE.TRANS64.RED.A1T0", "BAR.SYNC.DEFER_BLOCKING"])
        self.assertEqual((counts["total"], counts["HGMMA"], counts["LDSM"], counts["LDS"], counts["ldl_stl"],
                          counts["SYNCS"], counts["BAR"]), (6, 1, 1, 1, 1, 1, 1))

    def test_teaching_steps_left_out(self):
        objs = ["b/CMakeFiles/tessel_kernels.dir/./src/kernels/%s.cu.o" % s
                for s in ("ladder/k01", "gemm/k08", "ladder/k12", "gemm/units/k13_n128", "ladder/f06", "ladder/f09",
                          "gemm/pad_copy")]
        kept = [os.path.basename(p) for p in sass_record.gemm_objects(objs + ["b/x/src/kernels/copy.cu.o"])]
        self.assertEqual(kept, ["k08.cu.o", "pad_copy.cu.o", "k13_n128.cu.o"])


if __name__ == "__main__":
    unittest.main()
